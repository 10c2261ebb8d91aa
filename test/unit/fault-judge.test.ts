import { expect } from "chai";
import { isWellFormed } from "../../src/params.js";
import { judge } from "../faults/fuzz.js";
import { illFormedRequest, seededRandom, type IllFormedKind } from "../faults/fuzz-cases.js";

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

describe("fault pass: ill-formed Unicode in requests", function () {
  const route = {
    method: "POST",
    path: "/bots",
    intPathParams: new Set<string>(),
    paramNames: ["short_name"],
  };
  const request = (kind: IllFormedKind, seed = 1) =>
    illFormedRequest(seededRandom(seed), route, "short_name", kind, ["full_name"], "Basic x", undefined)!;

  it("sends each form so that it arrives ill-formed", function () {
    const lone = request("lone surrogate");
    expect(lone.headers["content-type"]).to.equal("application/json");
    const sent = JSON.parse(lone.body as string) as Record<string, string>;
    expect(sent.full_name).to.equal("1");
    expect(sent.short_name).to.match(/[\ud800-\udfff]/);
    expect(isWellFormed(sent.short_name!)).to.equal(false);

    const utf8 = request("ill-formed UTF-8");
    expect(utf8.headers["content-type"]).to.equal("application/x-www-form-urlencoded");
    expect(utf8.body).to.match(/^full_name=1&short_name=\S*%(ED|C0|E0|F0|FF|80|E2|F4)/);
    expect([...new URLSearchParams(utf8.body as string)][1]![1]).to.include("\ufffd");
  });

  it("puts ill-formed UTF-8 in a path parameter, and no lone surrogate where it cannot travel", function () {
    const byId = {
      method: "GET",
      path: "/users/:user_id_or_email",
      intPathParams: new Set<string>(),
      paramNames: [],
    };
    const inPath = illFormedRequest(
      seededRandom(2),
      byId,
      "user_id_or_email",
      "ill-formed UTF-8",
      [],
      null,
      "7",
    )!;
    expect(inPath.path).to.match(/^\/api\/v1\/users\/\S*%[0-9A-F]{2}/);
    expect(
      illFormedRequest(seededRandom(2), byId, "user_id_or_email", "lone surrogate", [], null, "7"),
    ).to.equal(null);
  });
});
