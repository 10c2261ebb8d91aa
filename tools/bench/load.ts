// Load generator child process: runs autocannon against one endpoint for a bounded time
// and prints {rps, p50_ms, p99_ms, non2xx, errors} as one JSON line.
import autocannon from "autocannon";
import { readInput } from "./processes.js";

interface LoadInput {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSec: number;
}

const input = readInput<LoadInput>();
const result = await autocannon({
  url: input.url,
  method: input.method ?? "GET",
  headers: input.headers,
  body: input.body,
  connections: input.connections,
  duration: input.durationSec,
});
process.stdout.write(
  `${JSON.stringify({
    rps: result.requests.average,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
  })}\n`,
);
