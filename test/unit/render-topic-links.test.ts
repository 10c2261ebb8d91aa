import { expect } from "chai";
import { topicLinks } from "../../src/render/message.js";
import { expandUrlTemplate } from "../../src/render/topic-links.js";

describe("render: topicLinks", function () {
  const github = { pattern: "#(?P<id>[0-9]+)", url_template: "https://github.com/zulip/zulip/issues/{id}" };

  it("is empty for a topic without linkifier matches or URLs", function () {
    expect(topicLinks("weekly sync", [])).to.deep.equal([]);
    expect(topicLinks("issue #123", [])).to.deep.equal([]);
  });

  it("applies linkifiers", function () {
    expect(topicLinks("fix #123 and #45", [github])).to.deep.equal([
      { url: "https://github.com/zulip/zulip/issues/123", text: "#123" },
      { url: "https://github.com/zulip/zulip/issues/45", text: "#45" },
    ]);
    // Only after a boundary and not inside a word.
    expect(topicLinks("a#123 #12b", [github])).to.deep.equal([]);
  });

  it("links URLs written in the topic", function () {
    expect(topicLinks("see https://example.com/a?b=1 and zulip.com", [])).to.deep.equal([
      { url: "https://example.com/a?b=1", text: "https://example.com/a?b=1" },
      { url: "https://zulip.com", text: "zulip.com" },
    ]);
  });

  it("prefers earlier linkifiers, then linkifiers over URLs, and never overlaps", function () {
    const jira = { pattern: "(?P<key>[A-Z]+-[0-9]+)", url_template: "https://jira.example/{key}" };
    const any = {
      pattern: "(?P<word>[A-Z]+)-(?P<n>[0-9]+)",
      url_template: "https://other.example/{word}/{n}",
    };
    expect(topicLinks("ABC-12 https://x.example/ABC-12", [jira, any])).to.deep.equal([
      { url: "https://jira.example/ABC-12", text: "ABC-12" },
      { url: "https://x.example/ABC-12", text: "https://x.example/ABC-12" },
    ]);
  });

  it("skips invalid patterns", function () {
    expect(topicLinks("#1", [{ pattern: "(", url_template: "x" }, github])).to.deep.equal([
      { url: "https://github.com/zulip/zulip/issues/1", text: "#1" },
    ]);
  });

  it("encodes characters outside the BMP whole, and a lone surrogate as U+FFFD", function () {
    expect(expandUrlTemplate("https://x/{a}", { a: "a😀" })).to.equal("https://x/a%F0%9F%98%80");
    expect(topicLinks("#a😀", [{ pattern: "#(?P<x>.+)", url_template: "https://e.com/{x}" }])).to.deep.equal([
      { url: "https://e.com/a%F0%9F%98%80", text: "#a😀" },
    ]);
    expect(expandUrlTemplate("https://x/{a}", { a: "a\uD800b" })).to.equal("https://x/a%EF%BF%BDb");
  });

  it("expands RFC 6570 templates", function () {
    expect(expandUrlTemplate("https://x/{a}", { a: "b c/d" })).to.equal("https://x/b%20c%2Fd");
    expect(expandUrlTemplate("https://x/{+a}", { a: "b/c?d" })).to.equal("https://x/b/c?d");
    expect(expandUrlTemplate("https://x/{#a}", { a: "top" })).to.equal("https://x/#top");
    expect(expandUrlTemplate("https://x/{a,b}", { a: "1", b: "2" })).to.equal("https://x/1,2");
    expect(expandUrlTemplate("https://x/{missing}", {})).to.equal("https://x/");
  });
});
