// Long-poll client child process. Parks N long-polls, fires one trigger request, and
// measures how long each parked poll takes to receive the event (same clock for the
// trigger and the receipts). Modes:
//  - baseline: against the bare long-poll server (GET /poll, POST /fire);
//  - chatd: N registered queues (given), GET /events; the trigger is a chatd request;
//  - hold: park N chatd long-polls and keep them until SIGTERM (memory measurement);
//  - follow: keep N chatd queues polling (as live clients do) until SIGTERM, then print
//    how many events they received.
import { Agent, request } from "node:http";
import { readInput } from "./processes.js";
import { percentile, round } from "./stats.js";

interface Credentials {
  email: string;
  apiKey: string;
}
interface Queue {
  auth: Credentials;
  queueId: string;
}
interface Input {
  mode: "baseline" | "chatd" | "hold" | "follow";
  base: string;
  rounds: number;
  n: number;
  queues?: Queue[];
  trigger?: { path: string; auth: Credentials; params: Record<string, string> };
}

const input = readInput<Input>();
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const basic = (auth: Credentials) =>
  `Basic ${Buffer.from(`${auth.email}:${auth.apiKey}`).toString("base64")}`;

function httpCall(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, input.base), { method, agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    if (body) req.end(body);
    else req.end();
  });
}

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
const formHeaders = (auth?: Credentials) => ({
  "content-type": "application/x-www-form-urlencoded",
  ...(auth ? { authorization: basic(auth) } : {}),
});

const lastEventIds = new Map<string, number>();

/** Parks one poll; resolves with the receipt time of its first non-heartbeat event, or null. */
async function park(i: number): Promise<number | null> {
  if (input.mode === "baseline") {
    const res = await httpCall("GET", "/poll");
    return res.status === 200 ? performance.now() : null;
  }
  const queue = input.queues![i % input.queues!.length]!;
  for (;;) {
    const last = lastEventIds.get(queue.queueId) ?? -1;
    const res = await httpCall(
      "GET",
      `/api/v1/events?queue_id=${encodeURIComponent(queue.queueId)}&last_event_id=${last}`,
      { authorization: basic(queue.auth) },
    );
    const at = performance.now();
    if (res.status !== 200) return null;
    const events = (JSON.parse(res.text) as { events: Array<{ id: number; type: string }> }).events;
    for (const e of events)
      lastEventIds.set(queue.queueId, Math.max(lastEventIds.get(queue.queueId) ?? -1, e.id));
    if (events.some((e) => e.type !== "heartbeat")) return at;
  }
}

async function fire(): Promise<void> {
  if (input.mode === "baseline") {
    await httpCall("POST", "/fire");
    return;
  }
  const trigger = input.trigger!;
  const res = await httpCall(
    "POST",
    `/api/v1${trigger.path}`,
    formHeaders(trigger.auth),
    form(trigger.params),
  );
  if (res.status !== 200) throw new Error(`trigger failed: ${res.status} ${res.text}`);
}

if (input.mode === "follow") {
  let received = 0;
  let stopping = false;
  const follow = async (i: number) => {
    while (!stopping) {
      const at = await park(i).catch(() => null);
      if (at === null) return;
      received++;
    }
  };
  const polls = Array.from({ length: input.n }, (_, i) => follow(i));
  void polls;
  await new Promise((r) => setTimeout(r, 1000));
  process.stdout.write(`${JSON.stringify({ parked: input.n })}\n`);
  await new Promise<void>((r) => process.once("SIGTERM", () => r()));
  stopping = true;
  process.stdout.write(`${JSON.stringify({ received })}\n`);
  process.exit(0);
}

if (input.mode === "hold") {
  const pending = Array.from({ length: input.n }, (_, i) => park(i).catch(() => null));
  void pending;
  await new Promise((r) => setTimeout(r, 2000));
  process.stdout.write(`${JSON.stringify({ parked: input.n })}\n`);
  await new Promise<void>((r) => process.once("SIGTERM", () => r()));
  process.exit(0);
}

const latencies: number[] = [];
let lost = 0;
for (let round_ = 0; round_ < input.rounds; round_++) {
  const receipts = Array.from({ length: input.n }, (_, i) => park(i));
  // Let every poll reach the server and park.
  await new Promise((r) => setTimeout(r, Math.max(500, input.n * 2)));
  // From the trigger request (chatd publishes events before it answers the sender).
  const firedAt = performance.now();
  await fire();
  const settled = await Promise.race([
    Promise.all(receipts),
    new Promise<null>((r) => setTimeout(() => r(null), 30_000)),
  ]);
  if (settled === null) {
    lost += input.n;
    continue;
  }
  for (const at of settled) {
    if (at === null) lost++;
    else latencies.push(at - firedAt);
  }
}
process.stdout.write(
  `${JSON.stringify({ p50_ms: round(percentile(latencies, 50)), p99_ms: round(percentile(latencies, 99)), lost, samples: latencies.length })}\n`,
);
agent.destroy();
