import { expect } from "chai";
import { RE2JS } from "re2js";
import { requiredLiteral } from "../../src/render/linkifier-literal.js";
import { linkifierLinks, mayMatch } from "../../src/render/linkifier-match.js";

describe("render: linkifier literal prefilter", function () {
  it("finds the longest text every match contains", function () {
    const cases: Array<[string, string]> = [
      ["#(?P<id>[0-9]+)", "#"],
      ["JIRA-(?P<id>\\d+)", "JIRA-"],
      ["https://github\\.com/(?P<org>[a-z]+)/(?P<repo>[a-z]+)/pull/(?P<id>\\d+)", "https://github.com/"],
      ["(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>\\d+)", "/"],
      ["RT:(?P<id>[0-9]+)", "RT:"],
      ["ab?cd", "cd"],
      ["abc*d", "ab"],
      ["a+bc", "bc"],
      ["ab{2}c", "ab"],
      ["ab{0,2}c", "a"],
      ["x\\.y", "x.y"],
      ["ab\\d+cd", "ab"],
      ["ab\\x41cdef", "cdef"],
      ["ab\\x{41}cdef", "cdef"],
      ["ab\\p{Greek}cdef", "cdef"],
      ["ab[(|]cdef", "cdef"],
      ["(?:abc|xyz)-(?P<n>\\d+)", "-"],
      ["é+ü-(?P<n>\\d+)", "ü-"],
    ];
    for (const [pattern, literal] of cases) expect(requiredLiteral(pattern), pattern).to.equal(literal);
  });

  it("gives nothing when no text is certainly required", function () {
    for (const pattern of [
      "(?P<key>[A-Z]+-[0-9]+)",
      "abc|xyz",
      "(?i)jira-(?P<id>\\d+)",
      "x(?i:abc)y",
      "\\Qa.b\\E",
      "a?b?",
      "[a-z]+",
      "\\1abc",
    ]) {
      expect(requiredLiteral(pattern), pattern).to.equal("");
    }
  });

  it("never skips text that RE2 would match", function () {
    const patterns = [
      "#(?P<id>[0-9]+)",
      "JIRA-(?P<id>\\d+)",
      "ab?cd",
      "abc*d",
      "a+bc",
      "ab{2}c",
      "ab{0,2}c",
      "x\\.y",
      "(?:abc|xyz)-(?P<n>\\d+)",
      "z(a|b)+c",
    ];
    const pieces = ["a", "b", "c", "d", "x", "y", "z", ".", "-", "#", "1", "JIRA", " ", "abc", "xyz"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % pieces.length;
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: 1 + (n % 9) }, () => pieces[next()]).join("");
      for (const pattern of patterns) {
        if (RE2JS.compile(pattern).matcher(text).find()) {
          expect(text.includes(requiredLiteral(pattern)), `${pattern} on ${text}`).to.equal(true);
        }
      }
    }
  });

  it("skips RE2 for text without the literal and still links text with it", function () {
    const jira = { pattern: "JIRA-(?P<id>\\d+)", url_template: "https://jira.example/{id}" };
    expect(mayMatch(jira.pattern, "nothing to see here")).to.equal(false);
    expect(mayMatch(jira.pattern, "see JIRA-12")).to.equal(true);
    expect(linkifierLinks("nothing to see here", [jira])).to.deep.equal([]);
    expect(linkifierLinks("see JIRA-12 and JIRA-7", [jira])).to.deep.equal([
      { url: "https://jira.example/12", text: "JIRA-12", index: 4, precedence: 0 },
      { url: "https://jira.example/7", text: "JIRA-7", index: 16, precedence: 0 },
    ]);
    // A pattern RE2 refuses matches nothing, with or without its literal.
    expect(mayMatch("JIRA-(?=x)", "JIRA-x")).to.equal(false);
  });
});
