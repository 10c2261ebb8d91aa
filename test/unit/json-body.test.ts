import { expect } from "chai";
import { jsonBody } from "../../src/http/json-body.js";
import { RawJson, encodeWithRawJson, jsonMember, rawJsonObject } from "../../src/lib/raw-json.js";

const bytes = (encoded: string | Buffer[]) =>
  typeof encoded === "string" ? Buffer.from(encoded) : Buffer.concat(encoded);

describe("JSON bodies of the plain API path", function () {
  it("is JSON.stringify's text when no value is encoded ahead of time", function () {
    const body = { result: "success", msg: "", a: [1, "é"], skipped: undefined, when: new Date(0) };
    expect(jsonBody(body)).to.equal(JSON.stringify(body));
  });

  it("gives encodeWithRawJson's bytes, the raw values' own buffers included as they are", function () {
    const list = new RawJson([Buffer.from('[{"a":1},'), Buffer.from('{"b":"\\u0000"}]')]);
    const bodies: Array<Record<string, unknown>> = [
      { result: "success", msg: "", subscriptions: list },
      { raw: list, result: "success", gone: undefined, f: () => 1, tail: { x: '"' } },
      { a: rawJsonObject([]), b: rawJsonObject([jsonMember("k", { n: 1 }), jsonMember("7", [true])]) },
      { only: list },
    ];
    for (const body of bodies) {
      const parts = jsonBody(body);
      expect(parts).to.be.an("array");
      expect(bytes(parts).equals(encodeWithRawJson(body)!)).to.equal(true);
      expect((parts as Buffer[]).filter((part) => list.chunks.includes(part))).to.have.length(
        "subscriptions" in body || "raw" in body || "only" in body ? 2 : 0,
      );
    }
  });
});
