import { expect } from "chai";
import { convertSlackMarkup, type MarkupContext } from "../../src/cli/import/slack/markup.js";

const ctx: MarkupContext = {
  users: new Map([
    ["U0BOB", { id: 2, mention: "Bob 李" }],
    ["U0TWIN", { id: 7, mention: "Sam|7" }],
  ]),
  channels: new Map([["C0RANDOM", "random"]]),
};
const convert = (text: string) => convertSlackMarkup(text, ctx);

describe("Slack import: markup -> Zulip Markdown (Zulip's slack_message_conversion.py)", function () {
  it("converts *bold*, _italic_ and ~strike~ at word edges only", function () {
    expect(convert("*bold* _italic_ ~strike~").content).to.equal("**bold** *italic* ~~strike~~");
    expect(convert("(*a*), _b_. ~c~!").content).to.equal("(**a**), *b*. ~~c~~!");
    // Mid-word markers are text in Slack, so they stay.
    expect(convert("snake_case_name 2*3*4 a~b~c").content).to.equal("snake_case_name 2*3*4 a~b~c");
    expect(convert("*héllo wörld* ünï").content).to.equal("**héllo wörld** ünï");
  });

  it("leaves code spans and blocks as written, fences on lines of their own", function () {
    expect(convert("see `*x* _y_` and *z*").content).to.equal("see `*x* _y_` and **z**");
    expect(convert("```a = *b*; if (a &lt; b) {}```").content).to.equal("```\na = *b*; if (a < b) {}\n```");
    expect(convert("before ```x``` after").content).to.equal("before \n```\nx\n```\n after");
    expect(convert("```\nmulti\nline\n```").content).to.equal("```\nmulti\nline\n```");
  });

  it("mentions users by full name and reports them; unknown ids stay as written", function () {
    const result = convert("hi <@U0BOB> and <@U0BOB|bob>, <@U0TWIN> and <@U0NOBODY>");
    expect(result.content).to.equal("hi @**Bob 李** and @**Bob 李**, @**Sam|7** and <@U0NOBODY>");
    expect(result.mentionedUserIds).to.deep.equal([2, 2, 7]);
  });

  it("makes <!channel>, <!everyone> and <!here> @**all**", function () {
    expect(convert("<!channel> <!everyone> <!here> <!here|here>").content).to.equal(
      "@**all** @**all** @**all** @**all**",
    );
  });

  it("links channels by id: #**name**", function () {
    expect(convert("see <#C0RANDOM|random> and <#C0RANDOM> and <#C0GONE|old>").content).to.equal(
      "see #**random** and #**random** and #**old**",
    );
  });

  it("converts links, labelled links and mailto, and reports a link", function () {
    const result = convert(
      "<https://example.com/a_b_c|Example &amp; co> <https://example.org/?a=1&amp;b=2> <mailto:x@example.com|x@example.com>",
    );
    expect(result.content).to.equal(
      "[Example & co](https://example.com/a_b_c) https://example.org/?a=1&b=2 mailto:x@example.com",
    );
    expect(result.hasLink).to.equal(true);
    expect(convert("no link here").hasLink).to.equal(false);
    expect(convert("bare https://example.net").hasLink).to.equal(true);
  });

  it("turns Slack's &lt; &gt; &amp; back into characters", function () {
    expect(convert("a &lt;b&gt; &amp;amp; c").content).to.equal("a <b> &amp; c");
  });

  it("formats around mentions and links without touching them", function () {
    expect(convert("*<@U0BOB>* _<https://x.org/_a_|x>_").content).to.equal(
      "**@**Bob 李**** *[x](https://x.org/_a_)*",
    );
  });
});
