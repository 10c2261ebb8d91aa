// Long-poll client child process. Parks N long-polls, fires one trigger request, and
// measures how long each parked poll takes to receive the event (same clock for the
// trigger and the receipts). Modes:
//  - baseline: against the bare long-poll server (GET /poll, POST /fire with the payload
//    size to send, as chatd's event responses measured);
//  - chatd: N registered queues (given), GET /events; the trigger is a chatd request;
//  - hold: park N chatd long-polls (one raw connection each) and keep them until SIGTERM
//    (memory measurement);
//  - follow: keep N chatd queues polling (as live clients do) until SIGTERM, then print
//    how many events they received.
// In both measured modes a receipt is handled the same way (the body read and parsed, its
// events checked), so the client's own work per receipt is the same; the first `warmup`
// firings are not counted (a fresh server's first answers run unoptimised code).
import { Agent, request } from "node:http";
import { readInput } from "./processes.js";
import { decode, RawConnection, type RawReceipt } from "./raw-http.js";
import { percentile, round } from "./stats.js";

interface Credentials {
  email: string;
  apiKey: string;
}
interface Queue {
  auth: Credentials;
  queueId: string;
  /** The last event an earlier run received on it (-1: none). */
  lastEventId?: number;
}
interface Input {
  mode: "baseline" | "chatd" | "hold" | "follow";
  base: string;
  rounds: number;
  n: number;
  queues?: Queue[];
  trigger?: { path: string; auth: Credentials; params: Record<string, string> };
  /** Baseline: the size of the body the bare server answers each poll with. */
  payloadBytes?: number;
  /** Firings before the measured `rounds`, not counted. */
  warmup?: number;
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

const lastEventIds = new Map<string, number>(
  (input.queues ?? []).map((q): [string, number] => [q.queueId, q.lastEventId ?? -1]),
);

/** The size of an event-carrying body received (chatd's, for the baseline to match). */
let eventBodyBytes = 0;

/** Parks one poll (follow mode); resolves with the receipt time of its first non-heartbeat event, or null. */
async function park(i: number): Promise<number | null> {
  const queue = input.mode === "baseline" ? null : input.queues![i % input.queues!.length]!;
  for (;;) {
    const res = queue
      ? await httpCall(
          "GET",
          `/api/v1/events?queue_id=${encodeURIComponent(queue.queueId)}&last_event_id=${lastEventIds.get(queue.queueId) ?? -1}`,
          { authorization: basic(queue.auth) },
        )
      : await httpCall("GET", "/poll");
    const at = performance.now();
    if (res.status !== 200) return null;
    const events = (JSON.parse(res.text) as { events: Array<{ id: number; type: string }> }).events;
    if (queue) {
      for (const e of events)
        lastEventIds.set(queue.queueId, Math.max(lastEventIds.get(queue.queueId) ?? -1, e.id));
    }
    if (events.some((e) => e.type !== "heartbeat")) {
      eventBodyBytes = Buffer.byteLength(res.text);
      return at;
    }
  }
}

async function fire(): Promise<void> {
  if (input.mode === "baseline") {
    await httpCall("POST", `/fire?bytes=${input.payloadBytes ?? 0}`);
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

/** The measured modes' polls: one raw keep-alive connection each (raw-http.ts). */
const server = new URL(input.base);
const connections: RawConnection[] = [];

/** Opens the connections a hundred at a time: a poll still connecting when the event fires would miss it. */
async function connectAll(): Promise<void> {
  for (let i = 0; i < input.n; i += 100) {
    const batch = Array.from({ length: Math.min(100, input.n - i) }, () => {
      const connection = new RawConnection(server.hostname, Number(server.port));
      connections.push(connection);
      return connection.ready;
    });
    await Promise.all(batch);
  }
}

/** Parks poll i; its receipt, or null if the request failed. */
function parkTimed(i: number): Promise<RawReceipt | null> {
  const connection = connections[i]!;
  if (input.mode === "baseline") return connection.get("/poll").catch(() => null);
  const queue = input.queues![i % input.queues!.length]!;
  const last = lastEventIds.get(queue.queueId) ?? -1;
  return connection
    .get(`/api/v1/events?queue_id=${encodeURIComponent(queue.queueId)}&last_event_id=${last}`, {
      authorization: basic(queue.auth),
    })
    .catch(() => null);
}

/** After a firing: whether poll i received an event (a heartbeat alone counts as lost); notes its events. */
function received(i: number, receipt: RawReceipt): boolean {
  const { status, text } = decode(receipt.raw);
  if (status !== 200) return false;
  const events = (JSON.parse(text) as { events: Array<{ id: number; type: string }> }).events;
  if (input.mode === "chatd") {
    const queueId = input.queues![i % input.queues!.length]!.queueId;
    for (const e of events) lastEventIds.set(queueId, Math.max(lastEventIds.get(queueId) ?? -1, e.id));
  }
  if (!events.some((e) => e.type !== "heartbeat")) return false;
  eventBodyBytes = Buffer.byteLength(text);
  return true;
}

/**
 * chatd: takes in what each queue holds already (dont_block), so that a poll parks until the
 * firing rather than answering at once with an older event (another run's, or any other send's).
 */
async function drainQueues(): Promise<void> {
  for (let i = 0; i < input.n; i += 100) {
    const batch = Array.from({ length: Math.min(100, input.n - i) }, async (_, k) => {
      const queue = input.queues![(i + k) % input.queues!.length]!;
      // Without last_event_id: whatever the queue still holds, whichever run acknowledged what.
      const receipt = await connections[i + k]!.get(
        `/api/v1/events?queue_id=${encodeURIComponent(queue.queueId)}&dont_block=true`,
        { authorization: basic(queue.auth) },
      );
      const { status, text } = decode(receipt.raw);
      if (status !== 200) throw new Error(`GET /events answered ${status}: ${text}`);
      for (const e of (JSON.parse(text) as { events: Array<{ id: number }> }).events)
        lastEventIds.set(queue.queueId, Math.max(lastEventIds.get(queue.queueId) ?? -1, e.id));
    });
    await Promise.all(batch);
  }
}

await connectAll();
if (input.mode === "hold") {
  // Connected a hundred at a time (connectAll): opened all at once, most would wait out
  // SYN retries past the listen backlog, and the memory measured would miss them.
  const parked = Array.from({ length: input.n }, (_, i) => parkTimed(i));
  void parked;
  await new Promise((r) => setTimeout(r, Math.max(2000, input.n / 2)));
  process.stdout.write(`${JSON.stringify({ parked: input.n })}\n`);
  await new Promise<void>((r) => process.once("SIGTERM", () => r()));
  process.exit(0);
}
if (input.mode === "chatd") await drainQueues();
const latencies: number[] = [];
const triggerMs: number[] = [];
const clientCpuMs: number[] = [];
let lost = 0;
const warmup = input.warmup ?? 0;
for (let round_ = 0; round_ < warmup + input.rounds; round_++) {
  const counted = round_ >= warmup;
  const receipts = Array.from({ length: input.n }, (_, i) => parkTimed(i));
  // Let every poll reach the server and park.
  await new Promise((r) => setTimeout(r, Math.max(500, input.n * 2)));
  // From the trigger request (chatd publishes events before it answers the sender).
  const cpuBefore = process.cpuUsage();
  const firedAt = performance.now();
  await fire();
  const answeredAt = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    Promise.all(receipts),
    new Promise<null>((r) => (timer = setTimeout(() => r(null), 30_000))),
  ]);
  // A pending timer would keep the process (and the benchmark) waiting after the last firing.
  clearTimeout(timer);
  const cpu = process.cpuUsage(cpuBefore);
  if (settled === null) {
    if (counted) lost += input.n;
    continue;
  }
  const arrived = settled.map((receipt, i) => (receipt !== null && received(i, receipt) ? receipt.at : null));
  if (!counted) continue;
  triggerMs.push(answeredAt - firedAt);
  clientCpuMs.push((cpu.user + cpu.system) / 1000);
  for (const at of arrived) {
    if (at === null) lost++;
    else latencies.push(at - firedAt);
  }
}
for (const connection of connections) connection.close();
process.stdout.write(
  `${JSON.stringify({
    p50_ms: round(percentile(latencies, 50)),
    p99_ms: round(percentile(latencies, 99)),
    lost,
    samples: latencies.length,
    bytes: eventBodyBytes,
    trigger_ms: round(percentile(triggerMs, 50)),
    client_cpu_ms: round(percentile(clientCpuMs, 50)),
    // For the next run over the same queues (events not acknowledged would come back at once).
    last_event_ids: Object.fromEntries(lastEventIds),
  })}\n`,
);
agent.destroy();
