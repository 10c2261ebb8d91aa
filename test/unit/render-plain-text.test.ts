import { expect } from "chai";
import { plainText, renderMessage } from "../../src/render/message.js";
import { fakeRenderContext } from "../helpers/render-context.js";

const render = (content: string) => renderMessage(content, fakeRenderContext());

describe("render: plainText", function () {
  it("extracts searchable text from rendered HTML", function () {
    const html = render(
      "**Hello** <world> & `code`\n\n* one\n* two :smile: :green_tick:\n\n```\nx < y\n```\n\n@**King Hamlet** #**announce**",
    ).html;
    expect(plainText(html)).to.equal(
      "Hello <world> & code\none\ntwo :smile: :green_tick:\nx < y\n@King Hamlet #announce",
    );
  });

  it("decodes entities", function () {
    expect(plainText("<p>&lt;&gt;&amp;&quot;&#39;&#x1F600;&nbsp;&bogus;</p>")).to.equal(
      "<>&\"'😀\u00a0&bogus;",
    );
  });
});
