import { expect } from "chai";
import { parseTimestamp } from "../../src/render/timestamp.js";
import {
  attachmentPathId,
  encodeChannel,
  hashUtilEncode,
  rewriteLocalLink,
  sanitizeUrl,
} from "../../src/render/urls.js";

describe("render: URLs", function () {
  it("sanitizes link targets as Zulip does", function () {
    const cases: Array<[string, string | null]> = [
      ["https://example.com/a b", "https://example.com/a%20b"],
      ["HTTP://example.com", "http://example.com"],
      ["example.com", "http://example.com"],
      ["//example.com/x", "http://example.com/x"],
      ["/user_uploads/1/a.png", "/user_uploads/1/a.png"],
      ["#narrow/channel/1-x", "#narrow/channel/1-x"],
      ["a@example.com", "mailto:a@example.com"],
      ["mailto:a@example.com", "mailto:a@example.com"],
      ["tel:+123", "tel:+123"],
      ["javascript:alert(1)", null],
      [" javascript:alert(1)", null],
      ["java\nscript:alert(1)", null],
      ["data:text/html,x", null],
      ["itms://itunes.com", null],
      ["", null],
    ];
    for (const [input, expected] of cases)
      expect(sanitizeUrl(input), JSON.stringify(input)).to.equal(expected);
  });

  it("makes links into the organization relative", function () {
    expect(rewriteLocalLink("https://chat.example/#narrow/is/starred", "https://chat.example")).to.equal(
      "#narrow/is/starred",
    );
    expect(rewriteLocalLink("https://chat.example/user_uploads/1/a", "https://chat.example/")).to.equal(
      "user_uploads/1/a",
    );
    expect(rewriteLocalLink("https://chat.example/help", "https://chat.example")).to.equal(
      "https://chat.example/help",
    );
  });

  it("finds the path_id an upload link names, non-ASCII names unencoded as path_ids keep them", function () {
    const realm = "https://chat.example";
    expect(attachmentPathId("/user_uploads/1/ab/xyz/a.pdf", realm)).to.equal("1/ab/xyz/a.pdf");
    expect(attachmentPathId("/user_uploads/1/ab/xyz/Stra%C3%9Fe.pdf", realm)).to.equal("1/ab/xyz/Straße.pdf");
    expect(attachmentPathId("https://chat.example/user_uploads/1/ab/xyz/Straße.pdf", realm)).to.equal(
      "1/ab/xyz/Straße.pdf",
    );
    expect(attachmentPathId("https://other.example/user_uploads/1/ab/xyz/a.pdf", realm)).to.equal(null);
    expect(attachmentPathId("/user_uploads/1/ab/xyz/%E0%A4%A.pdf", realm)).to.equal(null);
  });

  it("encodes narrow URLs like Zulip's hash_util_encode", function () {
    expect(hashUtilEncode("Zulip updates")).to.equal("Zulip.20updates");
    expect(hashUtilEncode("a.b (c)!*'~_-")).to.equal("a.2Eb.20.28c.29.21.2A.27~_-");
    expect(hashUtilEncode("café/ü")).to.equal("caf.C3.A9.2F.C3.BC");
    expect(encodeChannel(9, "design team")).to.equal("9-design-team");
  });
});

describe("render: timestamps", function () {
  const now = new Date("2024-01-15T12:00:00Z");
  const cases: Array<[string, string | null]> = [
    ["1496701800", "2017-06-05T22:30:00Z"],
    ["1496701800.25", "2017-06-05T22:30:00.250000Z"],
    ["2017-12-31", "2017-12-31T00:00:00Z"],
    ["2017-12-31T23:59:59Z", "2017-12-31T23:59:59Z"],
    ["2017-12-31 10:00 -0500", "2017-12-31T15:00:00Z"],
    ["31 Dec 2017", "2017-12-31T00:00:00Z"],
    ["Dec 31, 2017", "2017-12-31T00:00:00Z"],
    ["Jun 5th 2017, 10:30PM", "2017-06-05T22:30:00Z"],
    ["Monday, June 5 2017 at 10:30 am PDT", "2017-06-05T17:30:00Z"],
    ["31 Dec 2017 5:30 am IST", "2017-12-31T00:00:00Z"],
    ["12/31/2017", "2017-12-31T00:00:00Z"],
    ["12:00 am", "2024-01-15T00:00:00Z"],
    ["Feb 30 2017", null],
    ["hello world", null],
    ["**hello**", null],
    ["", null],
    ["25:00", null],
  ];
  for (const [input, expected] of cases) {
    it(`parses ${JSON.stringify(input)}`, function () {
      expect(parseTimestamp(input, now)).to.equal(expected);
    });
  }
});
