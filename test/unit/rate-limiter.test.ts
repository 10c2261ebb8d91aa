import { expect } from "chai";
import { parseRateLimitRules } from "../../src/config.js";
import type { JsonableError } from "../../src/errors.js";
import { RateLimiter } from "../../src/lib/rate-limiter.js";

/** A clock that moves only when told. */
class FrozenClock {
  ms = 1_700_000_000_000;
  nowMs() {
    return this.ms;
  }
}

describe("RateLimiter (Zulip's sliding window)", function () {
  it("parses Zulip's seconds:requests rules; empty means none", function () {
    expect(parseRateLimitRules("60:200")).to.deep.equal([{ windowSecs: 60, requests: 200 }]);
    expect(parseRateLimitRules(" 60:100 , 3600:1000 ")).to.have.length(2);
    expect(parseRateLimitRules("")).to.deep.equal([]);
  });

  it("allows exactly the rule's count in any window, then refuses until the oldest request leaves it", function () {
    const clock = new FrozenClock();
    const limiter = new RateLimiter(clock, { api_by_user: [{ windowSecs: 60, requests: 3 }] });
    const hit = () => limiter.hit("api_by_user", "1")!;
    const start = clock.ms;
    const remaining: number[] = [];
    for (const at of [0, 10_000, 20_000]) {
      clock.ms = start + at;
      remaining.push(hit().remaining);
    }
    expect(remaining).to.deep.equal([2, 1, 0]);
    // Full: refused until the first request (at 0) is 60 s old, however long the key waits.
    expect(hit()).to.deep.equal({ limited: true, limit: 3, remaining: 0, secsToFreedom: 40 });
    clock.ms = start + 59_999;
    expect(hit()).to.deep.equal({ limited: true, limit: 3, remaining: 0, secsToFreedom: 0.001 });
    clock.ms = start + 60_000;
    expect(hit()).to.deep.equal({ limited: false, limit: 3, remaining: 0, secsToFreedom: 60 });
    // One place freed, one taken: full again until the request at 10 s leaves.
    expect(hit()).to.deep.equal({ limited: true, limit: 3, remaining: 0, secsToFreedom: 10 });
    clock.ms = start + 80_000;
    expect(hit().remaining, "those at 10 s and 20 s have left; 60 s and this one remain").to.equal(1);
    clock.ms = start + 200_000;
    expect(hit().remaining, "all have left").to.equal(2);
  });

  it("never lets more than the rule's count into any window, and no burst beyond it", function () {
    const clock = new FrozenClock();
    const limiter = new RateLimiter(clock, { api_by_user: [{ windowSecs: 60, requests: 200 }] });
    const start = clock.ms;
    const accepted: number[] = [];
    // A client trying ten times a second for five minutes.
    for (let at = 0; at < 300_000; at += 100) {
      clock.ms = start + at;
      if (!limiter.hit("api_by_user", "u")!.limited) accepted.push(at);
    }
    expect(
      accepted.filter((at) => at < 60_000),
      "the first minute",
    ).to.have.length(200);
    for (let from = 0; from <= 240_000; from += 100) {
      const inWindow = accepted.filter((at) => at >= from && at < from + 60_000).length;
      expect(inWindow, `the minute from ${from} ms`).to.be.at.most(200);
    }
    expect(accepted).to.have.length(1000);
  });

  it("answers with Zulip's figures: the longest rule's limit, the room left in it, when it is empty", function () {
    const clock = new FrozenClock();
    const limiter = new RateLimiter(clock, { api_by_user: [{ windowSecs: 60, requests: 200 }] });
    const start = clock.ms;
    expect(limiter.enforce("api_by_user", "u")).to.deep.equal({
      "X-RateLimit-Limit": "200",
      "X-RateLimit-Remaining": "199",
      "X-RateLimit-Reset": String(Math.floor(start / 1000) + 60),
    });
    clock.ms = start + 30_500;
    for (let i = 0; i < 198; i++) limiter.enforce("api_by_user", "u");
    expect(limiter.enforce("api_by_user", "u")).to.deep.equal({
      "X-RateLimit-Limit": "200",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(Math.floor(clock.ms / 1000 + 60)),
    });
    let error: JsonableError | null = null;
    try {
      limiter.enforce("api_by_user", "u");
    } catch (err) {
      error = err as JsonableError;
    }
    // The first request leaves the window at start + 60 s: 29.5 s from now.
    expect(error?.toBody()).to.include({ code: "RATE_LIMIT_HIT", "retry-after": 29.5 });
    expect(error?.headers).to.deep.equal({
      "Retry-After": "30",
      "X-RateLimit-Limit": "200",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(Math.floor(start / 1000 + 60)),
    });
    clock.ms = start + 60_000;
    expect(limiter.enforce("api_by_user", "u")["X-RateLimit-Remaining"]).to.equal("0");
  });

  it("keeps keys and domains apart, and has no limits for a domain without rules", function () {
    const limiter = new RateLimiter(new FrozenClock(), { api_by_ip: [{ windowSecs: 60, requests: 1 }] });
    expect(limiter.hit("api_by_ip", "a")!.limited).to.equal(false);
    expect(limiter.hit("api_by_ip", "a")!.limited).to.equal(true);
    expect(limiter.hit("api_by_ip", "b")!.limited).to.equal(false);
    expect(limiter.hit("api_by_user", "a")).to.equal(null);
    expect(limiter.enforce("api_by_user", "a")).to.deep.equal({});
  });

  it("every rule of a domain must hold; refused requests count against none", function () {
    const clock = new FrozenClock();
    const limiter = new RateLimiter(clock, {
      api_by_user: [
        { windowSecs: 3600, requests: 4 },
        { windowSecs: 1, requests: 2 },
      ],
    });
    const limited = () => limiter.hit("api_by_user", "u")!.limited;
    expect([limited(), limited(), limited()]).to.deep.equal([false, false, true]);
    clock.ms += 1000;
    expect([limited(), limited(), limited()]).to.deep.equal([false, false, true]);
    clock.ms += 1000;
    expect(limited(), "the hourly rule").to.equal(true);
  });

  it("enforce throws RATE_LIMIT_HIT with Retry-After and X-RateLimit-* headers", function () {
    const clock = new FrozenClock();
    const limiter = new RateLimiter(clock, { authenticate_by_username: [{ windowSecs: 1800, requests: 5 }] });
    for (let i = 0; i < 5; i++) limiter.enforce("authenticate_by_username", "hamlet");
    let error: JsonableError | null = null;
    try {
      limiter.enforce("authenticate_by_username", "hamlet");
    } catch (err) {
      error = err as JsonableError;
    }
    expect(error?.status).to.equal(429);
    expect(error?.toBody()).to.deep.equal({
      result: "error",
      msg: "API usage exceeded rate limit",
      code: "RATE_LIMIT_HIT",
      "retry-after": 1800,
    });
    expect(error?.headers).to.deep.equal({
      "Retry-After": "1800",
      "X-RateLimit-Limit": "5",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(clock.ms / 1000 + 1800),
    });
    limiter.clear("authenticate_by_username", "hamlet");
    expect(limiter.enforce("authenticate_by_username", "hamlet")["X-RateLimit-Remaining"]).to.equal("4");
  });

  it("locks a username out after 5 logins in 30 minutes, strictly: one more only as each leaves", function () {
    const clock = new FrozenClock();
    const limiter = new RateLimiter(clock, { authenticate_by_username: [{ windowSecs: 1800, requests: 5 }] });
    const attempt = () => limiter.hit("authenticate_by_username", "hamlet")!;
    const start = clock.ms;
    const minutes = (m: number) => (clock.ms = start + m * 60_000);
    for (const m of [0, 5, 10, 15, 20]) {
      minutes(m);
      expect(attempt().limited, `attempt at ${m} min`).to.equal(false);
    }
    expect(attempt()).to.include({ limited: true, secsToFreedom: 600 });
    minutes(26); // a token bucket would have let one through by now
    expect(attempt()).to.include({ limited: true, secsToFreedom: 240 });
    minutes(29.99);
    expect(attempt().limited).to.equal(true);
    minutes(30); // the attempt at 0 min has left: one more
    expect(attempt().limited).to.equal(false);
    expect(attempt()).to.include({ limited: true, secsToFreedom: 300 });
    minutes(35);
    expect(attempt().limited).to.equal(false);
    expect(attempt().limited).to.equal(true);
  });

  it("forgets keys whose requests have all left the window, so memory follows active keys only", function () {
    const clock = new FrozenClock();
    const limiter = new RateLimiter(clock, { api_by_ip: [{ windowSecs: 60, requests: 100 }] });
    for (let i = 0; i < 10_000; i++) limiter.hit("api_by_ip", `10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size).to.equal(10_000);
    clock.ms += 61_000;
    limiter.hit("api_by_ip", "192.0.2.1");
    expect(limiter.size).to.equal(1);
  });
});
