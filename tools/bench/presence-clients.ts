// Presence load child process: N distinct users, each pinging POST /users/me/presence
// every 60 seconds as real clients do, in real time (Zulip stores a presence time only
// when it is 55 seconds newer, so a compressed schedule would measure cheaper no-op
// pings). A third of the clients ping as the web app does (last_update_id, incremental),
// a third as the mobile app (slim_presence, everyone's presence each time), a third as
// zulip-terminal (legacy format, everyone's presence each time). Each ping opens a new
// connection: 60 seconds apart, a kept-alive one would have timed out.
//
// The first minute every user pings once, spread evenly (warm-up: every user has
// presence, and the schedule is steady); then `measureSec` of the same schedule. Prints
// {"event":"measure"} when the measured part starts (the parent samples the server's CPU
// time then) and {"event":"done", ...stats} at the end.
import { request } from "node:http";
import { readInput } from "./processes.js";
import { percentile, round } from "./stats.js";

interface Input {
  base: string;
  users: Array<{ email: string; apiKey: string }>;
  measureSec: number;
}

const PING_INTERVAL_MS = 60_000;

const input = readInput<Input>();
const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - performance.now())));

type Kind = "web" | "mobile" | "terminal";
const kindOf = (i: number): Kind => (["web", "mobile", "terminal"] as const)[i % 3]!;
/** The web app's last_update_id, per user. */
const lastUpdateIds = new Map<number, number>();

function ping(i: number): Promise<{ status: number; ms: number }> {
  const user = input.users[i]!;
  const params: Record<string, string> = { status: "active", new_user_input: "true" };
  const kind = kindOf(i);
  if (kind === "web") params.last_update_id = String(lastUpdateIds.get(i) ?? -1);
  if (kind === "mobile") params.slim_presence = "true";
  const body = new URLSearchParams(params).toString();
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      new URL("/api/v1/users/me/presence", input.base),
      {
        method: "POST",
        agent: false,
        headers: {
          authorization: `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
          "content-length": Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          if (kind === "web" && res.statusCode === 200) {
            lastUpdateIds.set(
              i,
              (JSON.parse(text) as { presence_last_update_id: number }).presence_last_update_id,
            );
          }
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - started });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const n = input.users.length;
const latencies: number[] = [];
let failed = 0;
async function run(i: number, at: number, record: boolean): Promise<void> {
  await sleepUntil(at);
  try {
    const { status, ms } = await ping(i);
    if (status !== 200) failed++;
    else if (record) latencies.push(ms);
  } catch {
    failed++;
  }
}

const start = performance.now();
/** User i pings at start + offset(i), then every PING_INTERVAL_MS. */
const offset = (i: number) => (i * PING_INTERVAL_MS) / n;
const measureStart = start + PING_INTERVAL_MS;
const measureEnd = measureStart + input.measureSec * 1000;
const pings: Array<Promise<void>> = [];
for (let i = 0; i < n; i++) {
  for (let at = start + offset(i); at < measureEnd; at += PING_INTERVAL_MS) {
    pings.push(run(i, at, at >= measureStart));
  }
}
await sleepUntil(measureStart);
say({ event: "measure" });
await Promise.all(pings);
say({
  event: "done",
  pings: latencies.length,
  failed,
  p50_ms: round(percentile(latencies, 50)),
  p99_ms: round(percentile(latencies, 99)),
});
