import type { Clock } from "../clock.js";
import type { RateLimitRule } from "../config.js";
import { rateLimitHit } from "../errors.js";

/** Zulip's names: requests per user, unauthenticated requests per IP, password logins per username. */
export type RateLimitDomain = "api_by_user" | "api_by_ip" | "authenticate_by_username";

/**
 * Zulip's headers (RateLimitMiddleware): the limit, the requests left, and the Unix time
 * (whole seconds) at which the window is empty again.
 */
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
  /** Requests the longest rule's window still has room for (0 when limited). */
  readonly remaining: number;
  /**
   * Limited: seconds until the request that fills the window leaves it (a request is
   * allowed again then). Otherwise: until the newest request leaves the longest window.
   */
  readonly secsToFreedom: number;
}

/**
 * The times of a key's latest requests, oldest first, at most `capacity` of them: a ring
 * that grows as the key makes requests, so an occasional client costs a few numbers.
 */
class RecentRequests {
  private readonly times: number[] = [];
  /** Where the oldest time is once the ring is full (0 until then). */
  private oldest = 0;

  constructor(private readonly capacity: number) {}

  add(timeMs: number): void {
    if (this.times.length < this.capacity) {
      this.times.push(timeMs);
    } else {
      this.times[this.oldest] = timeMs;
      this.oldest = (this.oldest + 1) % this.capacity;
    }
  }

  /** The time of the `n`th newest request (1: the newest), if there were that many. */
  nthNewest(n: number): number | undefined {
    const count = this.times.length;
    return n > count ? undefined : this.times[(this.oldest + count - n) % count];
  }

  /** How many of the requests were made after `sinceMs` (binary search: the times are in order). */
  countAfter(sinceMs: number): number {
    const count = this.times.length;
    let low = 0;
    let high = count;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.times[(this.oldest + mid) % count]! > sinceMs) high = mid;
      else low = mid + 1;
    }
    return count - low;
  }
}

interface DomainState {
  /** Shortest window first, as Zulip checks them. */
  readonly rules: readonly RateLimitRule[];
  /** Zulip's max_api_calls and max_api_window: the longest rule's. */
  readonly longest: RateLimitRule;
  /** Times kept per key: as many as the largest rule counts. */
  readonly capacity: number;
  readonly keys: Map<string, RecentRequests>;
  lastSweepMs: number;
}

/**
 * Zulip's rate limiter (RedisRateLimiterBackend): a sliding window. Per key, the times of
 * its latest requests; a rule of N requests per W seconds refuses a request while the Nth
 * newest is less than W old, until it is exactly W old (retry-after says when). So no
 * key ever gets more than N requests into any W seconds, nor a burst beyond N. Memory per
 * key is at most the largest rule's N numbers; O(log N) per request; keys whose requests
 * have all left the window are forgotten. One key never touches another's state.
 */
export class RateLimiter {
  private readonly domains = new Map<RateLimitDomain, DomainState>();

  constructor(
    private readonly clock: Pick<Clock, "nowMs">,
    rules: Readonly<Partial<Record<RateLimitDomain, readonly RateLimitRule[]>>>,
  ) {
    for (const [domain, list] of Object.entries(rules) as Array<[RateLimitDomain, RateLimitRule[]]>) {
      if (list.length === 0) continue;
      const sorted = [...list].sort((a, b) => a.windowSecs - b.windowSecs);
      this.domains.set(domain, {
        rules: sorted,
        longest: sorted.at(-1)!,
        capacity: Math.max(...sorted.map((rule) => rule.requests)),
        keys: new Map(),
        lastSweepMs: 0,
      });
    }
  }

  /** Counts one request of `key` in `domain`; null when the domain has no rules. */
  hit(domain: RateLimitDomain, key: string): RateLimitResult | null {
    const state = this.domains.get(domain);
    if (!state) return null;
    const now = this.clock.nowMs();
    this.sweep(state, now);
    const recent = state.keys.get(key);
    // Limited while any rule's window is full: until its oldest request leaves (the
    // longest such wait when several are full).
    let freeAtMs = 0;
    for (const rule of state.rules) {
      const filling = recent?.nthNewest(rule.requests);
      if (filling !== undefined) freeAtMs = Math.max(freeAtMs, filling + rule.windowSecs * 1000);
    }
    if (freeAtMs > now) {
      // Refused requests are not counted, as in Zulip: waiting retry-after is enough.
      return {
        limited: true,
        limit: state.longest.requests,
        remaining: 0,
        secsToFreedom: (freeAtMs - now) / 1000,
      };
    }
    const requests = recent ?? new RecentRequests(state.capacity);
    if (!recent) state.keys.set(key, requests);
    requests.add(now);
    const windowMs = state.longest.windowSecs * 1000;
    return {
      limited: false,
      limit: state.longest.requests,
      remaining: Math.max(0, state.longest.requests - requests.countAfter(now - windowMs)),
      secsToFreedom: state.longest.windowSecs,
    };
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
    this.domains.get(domain)?.keys.delete(key);
  }

  /** Keys tracked, over all domains (for tests of the memory bound). */
  get size(): number {
    let total = 0;
    for (const state of this.domains.values()) total += state.keys.size;
    return total;
  }

  /**
   * Forgets keys whose every request has left the longest window; at most once per that
   * window, so amortized O(1) per request.
   */
  private sweep(state: DomainState, now: number): void {
    const windowMs = state.longest.windowSecs * 1000;
    if (now - state.lastSweepMs < windowMs) return;
    state.lastSweepMs = now;
    for (const [key, recent] of state.keys)
      if (recent.nthNewest(1)! + windowMs <= now) state.keys.delete(key);
  }
}
