import type { Clock } from "../clock.js";
import type { RateLimitRule } from "../config.js";
import { rateLimitHit } from "../errors.js";

/** Zulip's names: requests per user, unauthenticated requests per IP, password logins per username. */
export type RateLimitDomain = "api_by_user" | "api_by_ip" | "authenticate_by_username";

/** Zulip's headers: the limit, requests left, and the Unix time the bucket is empty again. */
export function rateLimitHeaders(result: RateLimitResult, nowMs: number): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(result.limit),
    "X-RateLimit-Remaining": String(result.remaining),
    "X-RateLimit-Reset": String(Math.floor(nowMs / 1000 + result.secsToFreedom)),
  };
}

export interface RateLimitResult {
  readonly limited: boolean;
  /** The request count of the domain's longest rule (Zulip's max_api_calls). */
  readonly limit: number;
  readonly remaining: number;
  /** Limited: seconds until a request is allowed again. Otherwise: until the bucket is empty. */
  readonly secsToFreedom: number;
}

/** Per rule: the time at which each key's bucket is empty again. */
interface RuleState {
  readonly rule: RateLimitRule;
  readonly resetAtMs: Map<string, number>;
  lastSweepMs: number;
}

/**
 * Zulip's in-memory rate limiter (TornadoInMemoryRateLimiterBackend): per rule and key,
 * one timestamp, pushed `window / requests` into the future by each request; a request
 * that would push it beyond `now + window` is refused. O(1) per request and one number
 * per active key. A key may burst `requests` at once, then goes at the rule's pace; one
 * key's excess never touches another key's state.
 */
export class RateLimiter {
  private readonly domains = new Map<RateLimitDomain, RuleState[]>();

  constructor(
    private readonly clock: Pick<Clock, "nowMs">,
    rules: Readonly<Partial<Record<RateLimitDomain, readonly RateLimitRule[]>>>,
  ) {
    for (const [domain, list] of Object.entries(rules) as Array<[RateLimitDomain, RateLimitRule[]]>) {
      const states = [...list]
        .sort((a, b) => a.windowSecs - b.windowSecs)
        .map((rule) => ({ rule, resetAtMs: new Map<string, number>(), lastSweepMs: 0 }));
      if (states.length > 0) this.domains.set(domain, states);
    }
  }

  /** Counts one request of `key` in `domain`; null when the domain has no rules. */
  hit(domain: RateLimitDomain, key: string): RateLimitResult | null {
    const states = this.domains.get(domain);
    if (!states) return null;
    const now = this.clock.nowMs();
    for (const state of states) {
      this.sweep(state, now);
      const { windowSecs, requests } = state.rule;
      const windowMs = windowSecs * 1000;
      const next = Math.max(state.resetAtMs.get(key) ?? now, now) + windowMs / requests;
      if (next > now + windowMs) {
        return {
          limited: true,
          limit: states.at(-1)!.rule.requests,
          remaining: 0,
          secsToFreedom: (next - windowMs - now) / 1000,
        };
      }
    }
    // Counted only once every rule allows it, as Zulip does.
    for (const state of states) {
      const windowMs = state.rule.windowSecs * 1000;
      state.resetAtMs.set(
        key,
        Math.max(state.resetAtMs.get(key) ?? now, now) + windowMs / state.rule.requests,
      );
    }
    return this.standing(states, key, now);
  }

  /**
   * Counts one request and returns Zulip's X-RateLimit-* headers for it (none when the
   * domain has no rules); beyond the limit, throws RATE_LIMIT_HIT carrying them.
   */
  enforce(domain: RateLimitDomain, key: string): Record<string, string> {
    const result = this.hit(domain, key);
    if (!result) return {};
    const headers = rateLimitHeaders(result, this.clock.nowMs());
    if (result.limited) throw rateLimitHit(result.secsToFreedom, headers);
    return headers;
  }

  /** Forgets a key (Zulip clears a username's failed logins once one succeeds). */
  clear(domain: RateLimitDomain, key: string): void {
    for (const state of this.domains.get(domain) ?? []) state.resetAtMs.delete(key);
  }

  /** Keys tracked, over all rules (for tests of the memory bound). */
  get size(): number {
    let total = 0;
    for (const states of this.domains.values()) for (const state of states) total += state.resetAtMs.size;
    return total;
  }

  /**
   * As Zulip reports it: the limit and the requests left under the domain's longest rule,
   * and when every rule's bucket is empty again.
   */
  private standing(states: RuleState[], key: string, now: number): RateLimitResult {
    const { rule, resetAtMs } = states.at(-1)!;
    const windowMs = rule.windowSecs * 1000;
    const resetAt = resetAtMs.get(key) ?? now;
    const remaining = Math.floor(((now + windowMs - resetAt) * rule.requests) / windowMs);
    let secsToFreedom = 0;
    for (const state of states) {
      secsToFreedom = Math.max(secsToFreedom, ((state.resetAtMs.get(key) ?? now) - now) / 1000);
    }
    return { limited: false, limit: rule.requests, remaining: Math.max(0, remaining), secsToFreedom };
  }

  /** Drops empty buckets; at most once per window, so amortized O(1) per request. */
  private sweep(state: RuleState, now: number): void {
    if (now - state.lastSweepMs < state.rule.windowSecs * 1000) return;
    state.lastSweepMs = now;
    for (const [key, resetAt] of state.resetAtMs) if (resetAt <= now) state.resetAtMs.delete(key);
  }
}
