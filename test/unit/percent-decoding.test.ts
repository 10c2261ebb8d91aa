import { expect } from "chai";
import { decodePathSegment, formEntries } from "../../src/http/percent-decoding.js";

/**
 * Percent-decoding keeps ill-formed UTF-8 visible: each byte outside a well-formed
 * sequence becomes a lone surrogate (U+DC80 to U+DCFF) for the parameter layer to refuse,
 * where URLSearchParams gives U+FFFD. Everything else decodes as URLSearchParams does.
 */
describe("percent-decoding of forms, query strings and path segments", function () {
  const value = (text: string) => [...formEntries(`v=${text}`)][0]![1];

  const ILL_FORMED: Array<[string, string, string]> = [
    ["a high surrogate's encoding", "%ED%A0%80", "\udced\udca0\udc80"],
    ["a low surrogate's encoding", "%ED%B0%80", "\udced\udcb0\udc80"],
    ["an overlong slash", "%C0%AF", "\udcc0\udcaf"],
    ["an overlong three-byte slash", "%E0%80%AF", "\udce0\udc80\udcaf"],
    ["a byte no sequence starts with", "%FF", "\udcff"],
    ["a lone continuation byte", "a%80b", "a\udc80b"],
    ["a truncated sequence", "%E2%82A", "\udce2\udc82A"],
    ["a code point over U+10FFFF", "%F4%90%80%80", "\udcf4\udc90\udc80\udc80"],
    ["ill-formed bytes among well-formed ones", "%C3%A9%FF%E2%82%AC", "é\udcff€"],
    ["a malformed escape beside ill-formed bytes", "%zz%FF+", "%zz\udcff "],
  ];
  for (const [what, text, decoded] of ILL_FORMED) {
    it(`keeps ${what} as lone surrogates`, function () {
      expect(value(text)).to.equal(decoded);
      expect(decodePathSegment(text.replace("+", "%20"))).to.equal(decoded);
    });
  }

  it("decodes well-formed forms exactly as URLSearchParams does, also beside ill-formed pairs", function () {
    for (const text of [
      "a=1&b=2&a=3",
      "a+b=c+d%20e",
      "%F0%9F%99%82=%EF%BF%BD",
      "%EF%BB%BFbom=%EF%BB%BF",
      "=&=&&x",
      "bad=%zz%C3%A9%",
      "k=caf\u00e9&%E2%82%AC=%C3%A9",
    ]) {
      expect([...formEntries(text)], text).to.deep.equal([...new URLSearchParams(text)]);
    }
    expect([...formEntries("a+b=caf%C3%A9&%FF=2&c=%zz")]).to.deep.equal([
      ["a b", "café"],
      ["\udcff", "2"],
      ["c", "%zz"],
    ]);
  });

  it("decodes path segments as decodeURIComponent, keeping malformed escapes and plus signs", function () {
    expect(decodePathSegment("a%2Fb%20c+d")).to.equal("a/b c+d");
    expect(decodePathSegment("%zz")).to.equal("%zz");
    expect(decodePathSegment("%41%zz")).to.equal("A%zz");
    expect(decodePathSegment("desdemona%40zulip.test")).to.equal("desdemona@zulip.test");
  });
});
