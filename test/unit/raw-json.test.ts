import { expect } from "chai";
import { RawJson, encodeWithRawJson, jsonMember, rawJsonObject } from "../../src/lib/raw-json.js";

describe("raw JSON in responses", function () {
  it("splices pre-encoded values into the serialized envelope", function () {
    const presences = rawJsonObject([jsonMember("a@x.test", { n: 1 }), jsonMember("7", [true, "é"])]);
    const body = { result: "success", msg: "", presences, after: '\u0000tricky"' };
    const encoded = encodeWithRawJson(body);
    expect(JSON.parse(encoded!.toString("utf8"))).to.deep.equal({
      result: "success",
      msg: "",
      presences: { "a@x.test": { n: 1 }, "7": [true, "é"] },
      after: '\u0000tricky"',
    });
  });

  it("encodes an empty object, several raw values, and leaves other bodies alone", function () {
    const body = { a: rawJsonObject([]), b: new RawJson([Buffer.from("[1,"), Buffer.from("2]")]) };
    expect(JSON.parse(encodeWithRawJson(body)!.toString("utf8"))).to.deep.equal({ a: {}, b: [1, 2] });
    expect(encodeWithRawJson({ result: "success", nested: { a: 1 } })).to.equal(null);
  });
});
