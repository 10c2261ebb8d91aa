import { expect } from "chai";
import { isMeMessage, renderMessage, type RenderedMessage } from "../../src/render/message.js";
import { fakeRenderContext } from "../helpers/render-context.js";

const render = (content: string): RenderedMessage => renderMessage(content, fakeRenderContext());
const ids = (set: Set<number>) => [...set].sort((a, b) => a - b);

describe("render: message mentions", function () {
  it("collects direct, non-silent mentions of active users", function () {
    const result = render("@**King Hamlet** @**othello** @**|13** @**King Hamlet|10**");
    expect(ids(result.mentionedUserIds)).to.deep.equal([10, 11, 13]);
    expect(result.wildcard).to.equal(null);
  });

  it("leaves out silent mentions and deactivated users", function () {
    const result = render("@_**King Hamlet** @**Polonius** @_**Othello|11**");
    expect(result.mentionedUserIds.size).to.equal(0);
    expect(result.html).to.contain('<span class="user-mention silent" data-user-id="12">Polonius</span>');
  });

  it("resolves a name shared by two users only with |id", function () {
    expect(render("@**Sam Smith**").mentionedUserIds.size).to.equal(0);
    expect(ids(render("@**Sam Smith|15**").mentionedUserIds)).to.deep.equal([15]);
    expect(render("@**Othello|15**").mentionedUserIds.size).to.equal(0);
  });

  it("ignores unknown names and IDs", function () {
    const result = render("@**Nobody** @**|404** @*nogroup*");
    expect(result.mentionedUserIds.size).to.equal(0);
    expect(result.mentionedGroupIds.size).to.equal(0);
    expect(result.html).to.equal("<p>@<strong>Nobody</strong> @<strong>|404</strong> @<em>nogroup</em></p>");
  });

  it("reports channel and topic wildcards", function () {
    for (const word of ["all", "everyone", "channel", "stream"]) {
      const result = render(`hey @**${word}**`);
      expect(result.wildcard, word).to.equal("channel");
      expect(result.mentionsChannelWildcard).to.equal(true);
      expect(result.mentionsTopicWildcard).to.equal(false);
    }
    const topic = render("@**topic**");
    expect(topic.wildcard).to.equal("topic");
    expect([topic.mentionsChannelWildcard, topic.mentionsTopicWildcard]).to.deep.equal([false, true]);
    const both = render("@**topic** and @**all**");
    expect(both.wildcard).to.equal("channel");
    expect([both.mentionsChannelWildcard, both.mentionsTopicWildcard]).to.deep.equal([true, true]);
  });

  it("does not count silent wildcards", function () {
    expect(render("@_**all** @_**topic**").wildcard).to.equal(null);
  });

  it("collects non-silent group mentions, never deactivated groups", function () {
    expect(ids(render("@*support*").mentionedGroupIds)).to.deep.equal([17]);
    expect(render("@_*support*").mentionedGroupIds.size).to.equal(0);
    const retired = render("@*retired*");
    expect(retired.mentionedGroupIds.size).to.equal(0);
    expect(retired.html).to.equal("<p>@<em>retired</em></p>");
  });

  it("silences every mention inside a quote", function () {
    for (const content of [
      "> @**King Hamlet** @*support* @**all** @**topic**",
      "```quote\n@**King Hamlet** @*support* @**all** @**topic**\n```",
      "~~~ quote\n> @**King Hamlet** @*support* @**all** @**topic**\n~~~",
    ]) {
      const result = render(content);
      expect(result.mentionedUserIds.size, content).to.equal(0);
      expect(result.mentionedGroupIds.size, content).to.equal(0);
      expect(result.wildcard, content).to.equal(null);
    }
    expect(ids(render("> @**King Hamlet**\n\n@**Othello**").mentionedUserIds)).to.deep.equal([11]);
  });

  it("ignores mention syntax in code and link labels", function () {
    const result = render(
      "`@**King Hamlet**` `@*support*` `@**all**`\n```\n@**Othello** #**announce**\n```\n    @**Desdemona**\n\n[@**Othello**](https://example.com)",
    );
    expect(result.mentionedUserIds.size).to.equal(0);
    expect(result.mentionedGroupIds.size).to.equal(0);
    expect(result.wildcard).to.equal(null);
    expect(result.linkedChannelIds.size).to.equal(0);
    expect(result.html).not.to.contain("user-mention");
  });

  it("collects linked channels", function () {
    const result = render("#**announce** #**Denmark>x** #**design team>y@5** #**nochannel**");
    expect(ids(result.linkedChannelIds)).to.deep.equal([1, 9, 20]);
    expect(result.hasLink).to.equal(true);
  });
});

describe("render: message properties", function () {
  it("recognizes /me messages", function () {
    expect(render("/me is away").isMeMessage).to.equal(true);
    expect(render("/me is away").html).to.equal("<p>/me is away</p>");
    for (const content of ["/me", "/meh", " /me is away", "hi /me"]) {
      expect(isMeMessage(content), content).to.equal(false);
    }
  });

  it("sets hasLink for links, URLs and channel links, not for text or code", function () {
    for (const content of ["[a](https://example.com)", "see example.com", "https://x.org", "#**announce**"]) {
      expect(render(content).hasLink, content).to.equal(true);
    }
    for (const content of ["plain text", "`https://example.com`", "readme.md", "[a](javascript:alert(1))"]) {
      expect(render(content).hasLink, content).to.equal(false);
    }
  });

  it("sets hasImage for links to images outside quotes", function () {
    expect(render("https://example.com/cat.png").hasImage).to.equal(true);
    expect(render("[cat](https://example.com/a/CAT.JPEG?size=2)").hasImage).to.equal(true);
    expect(render("> https://example.com/cat.png").hasImage).to.equal(false);
    expect(render("https://example.com/cat.html").hasImage).to.equal(false);
    expect(render(":green_tick:").hasImage).to.equal(false);
  });

  it("finds uploaded files on this server", function () {
    const result = render(
      "[a](/user_uploads/2/ab/a.pdf) http://zulip.testserver/user_uploads/2/cd/b.png [c](https://other.example/user_uploads/2/x)",
    );
    expect(result.potentialAttachmentPathIds).to.deep.equal(["2/ab/a.pdf", "2/cd/b.png"]);
    expect(result.hasAttachment).to.equal(true);
    expect(result.html).to.contain('<a href="user_uploads/2/cd/b.png">');
    expect(render("https://example.com/x.pdf").hasAttachment).to.equal(false);
  });

  it("renders empty content as empty HTML", function () {
    expect(render("").html).to.equal("");
    expect(render("  \n ").html).to.equal("");
  });
});

describe("render: sanitization", function () {
  it("escapes raw HTML in messages", function () {
    const html = render(
      '<script>alert(1)</script> <img src=x onerror="alert(1)"> <a href="javascript:x">y</a>',
    ).html;
    expect(html).to.equal(
      '<p>&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror="alert(1)"&gt; &lt;a href="javascript:x"&gt;y&lt;/a&gt;</p>',
    );
  });

  it("never links to javascript:, data: or vbscript: URLs", function () {
    for (const content of [
      "[x](javascript:alert(1))",
      "[x](JAVASCRIPT:alert(1))",
      "[x]( javascript:alert(1))",
      "[x](java\tscript:alert(1))",
      "[x](&#106;avascript:alert(1))",
      "[x](data:text/html;base64,PHNjcmlwdD4=)",
      "[x](vbscript:msgbox)",
      "javascript:alert(1)",
      "<javascript:alert(1)>",
    ]) {
      const result = render(content);
      expect(result.html, content).not.to.match(/href="(?:javascript|data|vbscript):/i);
      expect(result.hasLink, content).to.equal(false);
    }
  });

  it("escapes HTML in code", function () {
    expect(render("`<b onclick=x>`").html).to.equal("<p><code>&lt;b onclick=x&gt;</code></p>");
    expect(render("```\n<script>alert('x')</script>\n```").html).to.equal(
      '<div class="codehilite"><pre><span></span><code>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;\n</code></pre></div>',
    );
    expect(render('```"><script>\nx\n```').html).not.to.contain("<script>");
  });

  it("escapes what lands in attributes", function () {
    const ctx = fakeRenderContext({
      realmEmoji: (name) =>
        name === "evil" ? { id: 2, name, source_url: 'x" onerror="alert(1)' } : undefined,
    });
    expect(renderMessage(":evil:", ctx).html).to.equal(
      '<p><img alt=":evil:" class="emoji" src="x&quot; onerror=&quot;alert(1)" title="evil"></p>',
    );
    const html = renderMessage(
      ":evil:",
      fakeRenderContext({ realmEmoji: () => ({ id: 3, name: "x", source_url: "javascript:alert(1)" }) }),
    ).html;
    expect(html).not.to.contain("javascript:");
  });
});

describe("render: performance", function () {
  it("renders pathological 10,000-character messages quickly", function () {
    const inputs = [
      "*a ".repeat(3300),
      "**".repeat(5000),
      "~~x ".repeat(2500),
      "`a ".repeat(3300),
      "@**x ".repeat(2000),
      "#**a>".repeat(2000),
      "[".repeat(5000) + "]".repeat(5000),
      "> ".repeat(5000),
      "* ".repeat(5000),
      "😀".repeat(5000),
      "<time:".repeat(1600),
      ":a".repeat(5000),
      "**bold** *em* `code` @**King Hamlet** #**announce** :smile: http://x.com/a_b ~~del~~\n".repeat(110),
    ];
    for (const input of inputs) {
      const start = performance.now();
      render(input);
      expect(performance.now() - start, input.slice(0, 20)).to.be.below(1000);
    }
  });
});
