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

export async function measureHalfLoad(options: HalfLoadOptions): Promise<{ p50_ms: number; p99_ms: number }> {
  const run = await runJson<{
    latencies_ms: number[];
    non2xx: number;
    errors: number;
    error_codes: string[];
  }>("open-loop.js", {
    url: options.url,
    method: options.method,
    requests: options.requests,
    ratePerSec: options.maxRatePerSec / 2,
    durationSec: options.durationSec,
  });
  if (run.non2xx > 0 || run.errors > 0)
    throw new Error(`half load: ${run.non2xx} non-2xx, ${run.errors} errors (${run.error_codes.join(", ")})`);
  return { p50_ms: round(percentile(run.latencies_ms, 50)), p99_ms: round(percentile(run.latencies_ms, 99)) };
}
