// Open-loop load generator child process: sends requests (POST, or GET without a body) at a fixed rate whatever the
// server's answers do (a slow answer never delays the next request), cycling through the
// given requests, and prints {latencies_ms, sent, non2xx, errors} as one JSON line.
// Each latency runs from the request's scheduled time, so a stalled generator or server
// shows up in the figures instead of silently lowering the rate (no coordinated omission).
import { Agent, request } from "node:http";
import { readInput } from "./processes.js";

interface OpenLoopInput {
  url: string;
  method?: "GET" | "POST";
  requests: Array<{ headers: Record<string, string>; body: string }>;
  ratePerSec: number;
  durationSec: number;
}

const input = readInput<OpenLoopInput>();
const target = new URL(input.url);
// Idle sockets close before the server's keep-alive timeout (5 s) could close them under a
// request being sent on them (which would count as an error that is no server's fault). At
// most 256 connections: past the rate one generator core can drive (about 10,000 GETs a
// second), unbounded sockets ran out of file descriptors; a request waiting for a socket
// still counts its wait, since latency runs from its scheduled time.
const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 4000 });
const total = Math.round(input.ratePerSec * input.durationSec);
const latencies: number[] = [];
let non2xx = 0;
let errors = 0;
const errorCodes = new Set<string>();

function send(index: number, scheduledAt: number): Promise<void> {
  const { headers, body } = input.requests[index % input.requests.length]!;
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: input.method ?? "POST",
        headers: input.method === "GET" ? headers : { ...headers, "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => {
          latencies.push(performance.now() - scheduledAt);
          if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode >= 300) non2xx++;
          resolve();
        });
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) => {
      errors++;
      errorCodes.add(err.code ?? err.message);
      resolve();
    });
    if (input.method === "GET") req.end();
    else req.end(body);
  });
}

const started = performance.now();
const pending: Array<Promise<void>> = [];
for (let i = 0; i < total; i++) {
  const scheduledAt = started + (i * 1000) / input.ratePerSec;
  const wait = scheduledAt - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  pending.push(send(i, scheduledAt));
}
await Promise.all(pending);
agent.destroy();
process.stdout.write(
  `${JSON.stringify({ latencies_ms: latencies, sent: total, non2xx, errors, error_codes: [...errorCodes] })}\n`,
);
