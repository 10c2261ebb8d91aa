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

describe("RateLimiter (Zulip's in-memory algorithm)", function () {
  it("parses Zulip's seconds:requests rules; empty means none", function () {
    expect(parseRateLimitRules("60:200")).to.deep.equal([{ windowSecs: 60, requests: 200 }]);
    expect(parseRateLimitRules(" 60:100 , 3600:1000 ")).to.have.length(2);
    expect(parseRateLimitRules("")).to.deep.equal([]);
  });

  it("allows a burst of the rule's size, then one request per window/requests", function () {
    const clock = new FrozenClock();
    const limiter = new RateLimiter(clock, { api_by_user: [{ windowSecs: 60, requests: 3 }] });
    const remaining = [1, 2, 3].map(() => limiter.hit("api_by_user", "1")!.remaining);
    expect(remaining).to.deep.equal([2, 1, 0]);
    const refused = limiter.hit("api_by_user", "1")!;
    expect(refused).to.include({ limited: true, limit: 3, remaining: 0 });
    expect(refused.secsToFreedom).to.equal(20);
    clock.ms += 19_999;
    expect(limiter.hit("api_by_user", "1")!.limited).to.equal(true);
    clock.ms += 1;
    expect(limiter.hit("api_by_user", "1")!.limited).to.equal(false);
    expect(limiter.hit("api_by_user", "1")!.limited).to.equal(true);
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
      "retry-after": 360,
    });
    expect(error?.headers).to.deep.equal({
      "Retry-After": "360",
      "X-RateLimit-Limit": "5",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(clock.ms / 1000 + 360),
    });
    limiter.clear("authenticate_by_username", "hamlet");
    expect(limiter.enforce("authenticate_by_username", "hamlet")["X-RateLimit-Remaining"]).to.equal("4");
  });

  it("forgets keys whose bucket has emptied, so memory follows active keys only", function () {
    const clock = new FrozenClock();
    const limiter = new RateLimiter(clock, { api_by_ip: [{ windowSecs: 60, requests: 100 }] });
    for (let i = 0; i < 10_000; i++) limiter.hit("api_by_ip", `10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size).to.equal(10_000);
    clock.ms += 61_000;
    limiter.hit("api_by_ip", "192.0.2.1");
    expect(limiter.size).to.equal(1);
  });
});
