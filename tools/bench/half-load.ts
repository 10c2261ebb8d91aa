// Latency at a realistic load: an open-loop generator (open-loop.ts) at half the maximum rate a
// closed-loop run measured, so queues stay short and the figures show a request's own cost
// rather than the wait behind others at saturation.
import { runJson } from "./processes.js";
import { percentile, round } from "./stats.js";

export interface HalfLoadOptions {
  url: string;
  method: "GET" | "POST";
  /** Cycled through (one per sender, say); body ignored for GET. */
  requests: Array<{ headers: Record<string, string>; body: string }>;
  /** The measured maximum (closed-loop) rate; the generator runs at half of it. */
  maxRatePerSec: number;
  durationSec: number;
}

export interface HalfLoad {
  p50_ms: number;
  p99_ms: number;
  /** Requests per second the generator ran at. */
  rate: number;
  /** Why the run failed (non-2xx answers, network errors), or null. */
  error: string | null;
}

export async function measureHalfLoad(options: HalfLoadOptions): Promise<HalfLoad> {
  const rate = options.maxRatePerSec / 2;
  const run = await runJson<{
    latencies_ms: number[];
    non2xx: number;
    errors: number;
    error_codes: string[];
  }>("open-loop.js", {
    url: options.url,
    method: options.method,
    requests: options.requests,
    ratePerSec: rate,
    durationSec: options.durationSec,
  });
  const failed = run.non2xx > 0 || run.errors > 0;
  return {
    p50_ms: round(percentile(run.latencies_ms, 50)),
    p99_ms: round(percentile(run.latencies_ms, 99)),
    rate,
    error: failed ? `${run.non2xx} non-2xx, ${run.errors} errors (${run.error_codes.join(", ")})` : null,
  };
}
