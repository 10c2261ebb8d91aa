import { expect } from "chai";
import { judge } from "../faults/fuzz.js";
import { seededRandom } from "../faults/fuzz-cases.js";

/** The fault pass's verdict on one answer, and its repeatable randomness. */
describe("fault pass: judging answers", function () {
  it("accepts Zulip's envelopes and redirects", function () {
    expect(judge(200, '{"result":"success","msg":""}')).to.equal(null);
    expect(judge(400, '{"result":"error","msg":"Invalid","code":"BAD_REQUEST"}')).to.equal(null);
    expect(judge(302, "")).to.equal(null);
  });

  it("flags 5xx, bare errors and errors outside the envelope", function () {
    expect(judge(500, '{"result":"error","msg":"x","code":"INTERNAL_SERVER_ERROR"}')).to.equal("HTTP 500");
    expect(judge(431, "")).to.equal("error without a JSON body");
    expect(judge(400, '{"error":"bad"}')).to.equal("error that is not Zulip's envelope");
    expect(judge(400, '"bad"')).to.equal("JSON body that is not an object");
    expect(judge(200, '{"ok":true}')).to.equal("success that is not Zulip's envelope");
  });

  it("draws the same values for the same seed", function () {
    const draw = (seed: number) => Array.from({ length: 5 }, seededRandom(seed));
    expect(draw(16)).to.deep.equal(draw(16));
    expect(draw(16)).not.to.deep.equal(draw(17));
  });
});
