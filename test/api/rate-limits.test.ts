import { expect } from "chai";
import { Client, expectError, expectSuccess, type ApiResponse } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";

/** Zulip's 429: RATE_LIMIT_HIT with retry-after in the body and its headers. */
function expectRateLimited(res: ApiResponse, limit: number, nowMs = Date.now()): void {
  expectError(res, 429, "API usage exceeded rate limit", "RATE_LIMIT_HIT");
  const retryAfter = res.body["retry-after"] as number;
  expect(retryAfter).to.be.a("number").above(0);
  expect(res.headers.get("retry-after")).to.equal(String(Math.max(1, Math.ceil(retryAfter))));
  expect(res.headers.get("x-ratelimit-limit")).to.equal(String(limit));
  expect(res.headers.get("x-ratelimit-remaining")).to.equal("0");
  const reset = Number(res.headers.get("x-ratelimit-reset"));
  expect(reset).to.be.within(Math.floor(nowMs / 1000), nowMs / 1000 + 3600);
}

/** `n` requests one after another; the responses. */
async function repeat(n: number, send: () => Promise<ApiResponse>): Promise<ApiResponse[]> {
  const responses: ApiResponse[] = [];
  for (let i = 0; i < n; i++) responses.push(await send());
  return responses;
}

const statuses = (responses: ApiResponse[]) => [...new Set(responses.map((r) => r.status))];

describe("rate limits (Zulip's defaults)", function () {
  let server: TestServer;
  let realm: TestRealm;

  beforeEach(async function () {
    server = await startTestServer({ rate_limiting: true });
    server.clock.freeze();
    realm = await server.factory.realm();
  });
  afterEach(async function () {
    await server.close();
  });

  it("api_by_user: 200 requests per 60 s per user, with X-RateLimit-* headers; another user is unaffected", async function () {
    const hamlet = realm.users.hamlet!;
    const first = await hamlet.client.get("/users/me");
    expectSuccess(first);
    expect(first.headers.get("x-ratelimit-limit")).to.equal("200");
    expect(first.headers.get("x-ratelimit-remaining")).to.equal("199");
    const rest = await repeat(199, () => hamlet.client.get("/users/me"));
    expect(statuses(rest)).to.deep.equal([200]);
    expect(rest.at(-1)!.headers.get("x-ratelimit-remaining")).to.equal("0");

    const refused = await hamlet.client.get("/users/me");
    expectRateLimited(refused, 200, server.clock.nowMs());
    // Limited until the first of the 200 is 60 s old (all were sent at the same instant here).
    expect(refused.body["retry-after"]).to.equal(60);
    expect(refused.headers.get("retry-after")).to.equal("60");
    // Refused requests do not count: it does not dig itself deeper.
    expectRateLimited(
      await hamlet.client.post("/messages", { type: "stream", to: "x", content: "y" }),
      200,
      server.clock.nowMs(),
    );

    const othello = realm.users.othello!;
    const other = await othello.client.get("/users/me");
    expectSuccess(other);
    expect(other.headers.get("x-ratelimit-remaining")).to.equal("199");

    server.clock.advance(59_999);
    const stillRefused = await hamlet.client.get("/users/me");
    expectRateLimited(stillRefused, 200, server.clock.nowMs());
    expect(stillRefused.body["retry-after"]).to.equal(0.001);
    server.clock.advance(1);
    expect(statuses(await repeat(200, () => hamlet.client.get("/users/me")))).to.deep.equal([200]);
    expectRateLimited(await hamlet.client.get("/users/me"), 200, server.clock.nowMs());
  });

  it("api_by_user is a sliding window: at most 200 in any 60 s, however they are spread", async function () {
    const hamlet = realm.users.hamlet!;
    const first = await hamlet.client.get("/users/me");
    const firstAt = Math.floor(server.clock.nowMs() / 1000);
    expect(first.headers.get("x-ratelimit-reset")).to.equal(String(firstAt + 60));
    expect(statuses(await repeat(99, () => hamlet.client.get("/users/me")))).to.deep.equal([200]);
    server.clock.advance(30_000);
    const later = await repeat(100, () => hamlet.client.get("/users/me"));
    expect(statuses(later)).to.deep.equal([200]);
    expect(later.at(-1)!.headers.get("x-ratelimit-remaining")).to.equal("0");
    expect(later.at(-1)!.headers.get("x-ratelimit-reset")).to.equal(String(firstAt + 30 + 60));
    // A bucket would have refilled by half a minute's worth by now; the window has no room
    // until the first hundred are 60 s old.
    const refused = await hamlet.client.get("/users/me");
    expectRateLimited(refused, 200, server.clock.nowMs());
    expect(refused.body["retry-after"]).to.equal(30);
    expect(refused.headers.get("x-ratelimit-reset")).to.equal(String(firstAt + 60));

    server.clock.advance(30_000);
    const freed = await repeat(100, () => hamlet.client.get("/users/me"));
    expect(statuses(freed)).to.deep.equal([200]);
    expect(freed[0]!.headers.get("x-ratelimit-remaining")).to.equal("99");
    const again = await hamlet.client.get("/users/me");
    expectRateLimited(again, 200, server.clock.nowMs());
    expect(again.body["retry-after"]).to.equal(30);
  });

  it("api_by_ip: 100 unauthenticated requests per 60 s per IP address", async function () {
    const served = await repeat(100, () => server.anonymous.get("/server_settings"));
    expect(statuses(served)).to.deep.equal([200]);
    expectRateLimited(await server.anonymous.get("/server_settings"), 100, server.clock.nowMs());
    // The same address's authenticated users have their own limits.
    expectSuccess(await realm.users.hamlet!.client.get("/users/me"));
  });

  it("failed authentications count per IP and are refused beyond it; valid keys from that IP still work", async function () {
    const hamlet = realm.users.hamlet!;
    const forger = new Client(server.url, { email: hamlet.email, apiKey: "x".repeat(32) });
    const failed = await repeat(100, () => forger.get("/users/me"));
    expect(statuses(failed)).to.deep.equal([401]);
    expectRateLimited(await forger.get("/users/me"), 100, server.clock.nowMs());
    expectRateLimited(await server.anonymous.get("/users/me"), 100, server.clock.nowMs());
    expectSuccess(await hamlet.client.get("/users/me"));
  });

  it("authenticate_by_username: 5 password attempts per 30 minutes per username; a success clears them", async function () {
    const hamlet = realm.users.hamlet!;
    const othello = realm.users.othello!;
    const login = (username: string, password: string) =>
      server.anonymous.post("/fetch_api_key", { username, password });

    expectError(
      await login(hamlet.email, "wrong"),
      401,
      "Your username or password is incorrect",
      "AUTHENTICATION_FAILED",
    );
    expectSuccess(await login(hamlet.email, hamlet.password)); // clears the failure
    const wrong = await repeat(5, () => login(hamlet.email, "wrong"));
    expect(statuses(wrong)).to.deep.equal([401]);
    // Even the right password is refused now, without being checked; the key stays unissued.
    const refused = await login(hamlet.email.toUpperCase(), hamlet.password);
    expectRateLimited(refused, 5, server.clock.nowMs());
    expect(refused.body["retry-after"]).to.equal(1800); // until the first attempt is 30 min old
    expect(refused.body).not.to.have.property("api_key");
    // Another username is unaffected.
    expectSuccess(await login(othello.email, othello.password));

    // Locked out for the whole 30 minutes: no attempt reopens before the first one leaves.
    server.clock.advance(360_000);
    const stillRefused = await login(hamlet.email, hamlet.password);
    expectRateLimited(stillRefused, 5, server.clock.nowMs());
    expect(stillRefused.body["retry-after"]).to.equal(1440);
    server.clock.advance(1_440_000);
    expectSuccess(await login(hamlet.email, hamlet.password));
  });

  it("authenticate_by_username: attempts spread over 30 minutes lock out until the oldest is 30 min old", async function () {
    const hamlet = realm.users.hamlet!;
    const login = (password: string) =>
      server.anonymous.post("/fetch_api_key", { username: hamlet.email, password });
    for (let i = 0; i < 5; i++) {
      if (i > 0) server.clock.advance(300_000);
      expectError(
        await login("wrong"),
        401,
        "Your username or password is incorrect",
        "AUTHENTICATION_FAILED",
      );
    }
    // At 20 min: the attempt at 0 min leaves the window at 30 min.
    const refused = await login(hamlet.password);
    expectRateLimited(refused, 5, server.clock.nowMs());
    expect(refused.body["retry-after"]).to.equal(600);
    server.clock.advance(599_000);
    expectRateLimited(await login(hamlet.password), 5, server.clock.nowMs());
    server.clock.advance(1000);
    // One attempt opens: a wrong one takes it, and the next opens when the 5 min one leaves.
    expectError(await login("wrong"), 401, "Your username or password is incorrect", "AUTHENTICATION_FAILED");
    const next = await login(hamlet.password);
    expectRateLimited(next, 5, server.clock.nowMs());
    expect(next.body["retry-after"]).to.equal(300);
  });
});

describe("rate limits: settings", function () {
  let server: TestServer | null = null;
  afterEach(async function () {
    await server?.close();
    server = null;
  });

  it("rules are settings (seconds:requests); rate_limiting false turns them all off", async function () {
    server = await startTestServer({ rate_limiting: true, rate_limit_api_by_ip: "60:2,3600:3" });
    server.clock.freeze();
    expect(statuses(await repeat(2, () => server!.anonymous.get("/server_settings")))).to.deep.equal([200]);
    // Zulip reports the longest rule's limit.
    expectRateLimited(await server.anonymous.get("/server_settings"), 3, server.clock.nowMs());
    server.clock.advance(60_000);
    expectSuccess(await server.anonymous.get("/server_settings"));
    expectRateLimited(await server.anonymous.get("/server_settings"), 3, server.clock.nowMs()); // the hourly rule
    await server.close();

    server = await startTestServer({ rate_limiting: false, rate_limit_api_by_ip: "60:2" });
    const free = await repeat(5, () => server!.anonymous.get("/server_settings"));
    expect(statuses(free)).to.deep.equal([200]);
    expect(free[0]!.headers.get("x-ratelimit-limit")).to.equal(null);
  });

  it("X-Forwarded-For decides the client's address only behind a trusted proxy", async function () {
    const from = (ip: string) => ({ headers: { "x-forwarded-for": ip } });
    server = await startTestServer({ rate_limiting: true, rate_limit_api_by_ip: "60:2" });
    // Not trusted: the header is ignored and everyone shares the peer's bucket.
    await server.anonymous.get("/server_settings", {}, from("203.0.113.1"));
    await server.anonymous.get("/server_settings", {}, from("203.0.113.2"));
    expectRateLimited(await server.anonymous.get("/server_settings", {}, from("203.0.113.3")), 2);
    await server.close();

    server = await startTestServer({
      rate_limiting: true,
      rate_limit_api_by_ip: "60:2",
      trusted_proxies: "10.0.0.0/8, 127.0.0.1",
    });
    const anonymous = server.anonymous;
    // The rightmost untrusted hop is the client; what it claims further left is not believed.
    const a = "198.51.100.7, 203.0.113.1, 10.1.2.3";
    expect(statuses(await repeat(2, () => anonymous.get("/server_settings", {}, from(a))))).to.deep.equal([
      200,
    ]);
    expectRateLimited(await anonymous.get("/server_settings", {}, from("1.1.1.1, 203.0.113.1")), 2);
    expectSuccess(await anonymous.get("/server_settings", {}, from("203.0.113.2")));
    expectSuccess(await anonymous.get("/server_settings", {}, from("::ffff:203.0.113.9")));
  });
});
