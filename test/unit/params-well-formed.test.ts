import { expect } from "chai";
import { JsonableError } from "../../src/errors.js";
import { validate, p, parseParams } from "../../src/params.js";

/**
 * The parameter layer refuses ill-formed Unicode (a lone UTF-16 surrogate) in every
 * parameter, whatever its kind, naming it: a plain string value or name "is not valid
 * UTF-8"; a lone surrogate escaped inside JSON text "is not valid JSON", as Zulip's JSON
 * decoder answers. Well-formed text, surrogate pairs included, reads as before.
 */
describe("params: ill-formed Unicode", function () {
  const spec = {
    text: p.str().optional(),
    choice: p.oneOf(["a", "b"]).optional(),
    data: p.json(validate.any()).optional(),
    ids: p.listOf(validate.int()).optional(),
    id: p.path(p.str()),
  };
  const parse = (raw: Record<string, string>, id = "x") =>
    parseParams(spec, new Map(Object.entries(raw)), { id });
  const refusal = (raw: Record<string, string>, id?: string): string => {
    try {
      parse(raw, id);
    } catch (err) {
      expect(err).to.be.instanceOf(JsonableError);
      expect((err as JsonableError).status).to.equal(400);
      expect((err as JsonableError).code).to.equal("BAD_REQUEST");
      return (err as JsonableError).message;
    }
    throw new Error(`accepted ${JSON.stringify(raw)}`);
  };

  const REFUSED: Array<[string, Record<string, string>, string | undefined, string]> = [
    ["a lone high surrogate", { text: "a\ud800" }, undefined, "text is not valid UTF-8"],
    ["a lone low surrogate", { text: "\udc00b" }, undefined, "text is not valid UTF-8"],
    ["a pair in the wrong order", { text: "\udc00\ud800" }, undefined, "text is not valid UTF-8"],
    ["a high surrogate at the end", { text: "truncated \ud83d" }, undefined, "text is not valid UTF-8"],
    ["surrogate-escaped bytes (%FF)", { text: "\udcff" }, undefined, "text is not valid UTF-8"],
    ["a value from a fixed set", { choice: "a\ud800" }, undefined, "choice is not valid UTF-8"],
    ["raw JSON text", { data: '["\ud800"]' }, undefined, "data is not valid UTF-8"],
    ["a parameter nobody reads", { stray: "\ud800" }, undefined, "stray is not valid UTF-8"],
    ["a parameter's name", { "\ud800": "x" }, undefined, "\ufffd is not valid UTF-8"],
    ["a path parameter", {}, "\udced\udca0\udc80", "id is not valid UTF-8"],
    ["an escaped high surrogate in JSON", { data: '["\\ud800"]' }, undefined, "data is not valid JSON"],
    ["an escaped low surrogate in JSON", { data: '{"a":"x\\uDC00"}' }, undefined, "data is not valid JSON"],
    ["an escaped lone surrogate in a key", { data: '{"\\udbff":1}' }, undefined, "data is not valid JSON"],
    ["an escaped pair in the wrong order", { data: '"\\udc00\\ud800"' }, undefined, "data is not valid JSON"],
    [
      "an escaped lone surrogate deep down",
      { data: `${"[".repeat(5000)}"\\ud800"${"]".repeat(5000)}` },
      undefined,
      "data is not valid JSON",
    ],
    ["a list parameter", { ids: '[1, "\\ud800"]' }, undefined, "ids is not valid JSON"],
  ];
  for (const [what, raw, id, message] of REFUSED) {
    it(`refuses ${what}`, function () {
      expect(refusal(raw, id)).to.equal(message);
    });
  }

  const ACCEPTED: Array<[string, Record<string, string>, Record<string, unknown>]> = [
    ["a surrogate pair", { text: "\ud83d\ude42" }, { text: "🙂" }],
    ["U+FFFD itself", { text: "\ufffd" }, { text: "\ufffd" }],
    ["an escaped pair in JSON", { data: '["\\ud83d\\ude42"]' }, { data: ["🙂"] }],
    ["an escaped backslash before u", { data: '["\\\\ud800"]' }, { data: ["\\ud800"] }],
    ["a pair escaped as a key", { data: '{"\\uD83D\\uDE42":1}' }, { data: { "🙂": 1 } }],
  ];
  for (const [what, raw, values] of ACCEPTED) {
    it(`accepts ${what}`, function () {
      expect(parse(raw).values).to.deep.include(values);
    });
  }
});
