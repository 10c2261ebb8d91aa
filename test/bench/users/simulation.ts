// Users-per-core load generator (one child process, on the load core): simulates N people
// using chatd in real time (see docs/benchmark.md, "Users per core"). Every user holds one event queue
// long-polling over its own keep-alive connection; pings presence every 60 s as the mobile
// app does; sends a message every 5 minutes on average (Poisson; 70 % to one of its channels,
// 30 % a direct message to a channel-mate), a third of them after a typing notification;
// marks what it received as read every 60 s; opens a narrow (50 messages around the first
// unread) every 2 minutes. A fifth of the users start by registering (the mobile app's full
// POST /register) at a uniformly spread time during warm-up and window; the others registered
// before (with a small initial state, as a client already running would have).
//
// Prints one JSON line per phase: {"event":"ready"} (queues registered, polls parked),
// {"event":"window"}, {"event":"window-end"}, then {"event":"done", ...figures}, where the
// figures cover requests started in the window, and delivery runs from each send's start
// to the receipt by each recipient's poll (every recipient whose queue existed when the
// send started; the sender's own queue included). Events still missing after the drain
// are lost.
import { Agent, request } from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { readInput } from "../processes.js";
import { percentile, round } from "../stats.js";
import { random } from "../dataset.js";

export interface SimulationInput {
  base: string;
  users: Array<{ id: number; email: string; apiKey: string }>;
  /** Channels among these users; members are indexes into users. */
  channels: Array<{ id: number; members: number[] }>;
  warmupSec: number;
  windowSec: number;
  drainSec: number;
  seed: number;
}

const PRESENCE_EVERY_MS = 60_000;
const MESSAGE_MEAN_MS = 300_000;
const NARROW_EVERY_MS = 120_000;
const READ_FLUSH_EVERY_MS = 60_000;
const CHANNEL_SHARE = 0.7;
const TYPING_SHARE = 1 / 3;
const REGISTERING_SHARE = 0.2;
const PREREGISTER_CONCURRENCY = 8;

/** What the mobile app sends to POST /register (zulip-flutter lib/api/route/events.dart). */
const MOBILE_REGISTER = {
  apply_markdown: "true",
  slim_presence: "true",
  client_capabilities: JSON.stringify({
    notification_settings_null: true,
    bulk_message_deletion: true,
    user_avatar_url_field_optional: true,
    stream_typing_notifications: false,
    user_settings_object: true,
  }),
};

const input = readInput<SimulationInput>();
const next = random(input.seed);
const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

// Long-polls keep their socket busy; other requests share idle sockets, closed before the
// server's keep-alive timeout (5 s) could close one under a request being sent.
const pollAgent = new Agent({ keepAlive: true, maxSockets: Infinity });
const shortAgent = new Agent({ keepAlive: true, maxSockets: Infinity, timeout: 4000 });
const target = new URL(input.base);

interface Answer {
  status: number;
  text: string;
}

function call(
  agent: Agent,
  method: "GET" | "POST",
  path: string,
  auth: string,
  params?: Record<string, string>,
): Promise<Answer> {
  const body = method === "POST" && params ? new URLSearchParams(params).toString() : undefined;
  const query = method === "GET" && params ? `?${new URLSearchParams(params).toString()}` : "";
  const headers: Record<string, string | number> = { authorization: auth };
  if (body !== undefined) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    headers["content-length"] = Buffer.byteLength(body);
  }
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: target.hostname, port: target.port, method, path: `/api/v1${path}${query}`, headers },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

// ---- figures ----

type Kind = "send" | "register" | "events" | "presence" | "typing" | "narrow" | "flags";
const latencies: Record<"send" | "register" | "narrow" | "delivery", number[]> = {
  send: [],
  register: [],
  narrow: [],
  delivery: [],
};
const failures: Partial<Record<Kind, number>> = {};
const failureSamples: string[] = [];
let windowStart = Infinity;
let windowEnd = Infinity;
/** Set at the window's end: users stop acting, their polls go on (the drain). */
let stopping = false;
const inWindow = (at: number) => at >= windowStart && at < windowEnd;
let requestsInWindow = 0;

function fail(kind: Kind, detail: string) {
  failures[kind] = (failures[kind] ?? 0) + 1;
  if (failureSamples.length < 10) failureSamples.push(`${kind}: ${detail.slice(0, 300)}`);
}

/** Runs one request and counts it; answers its body when it succeeded. */
async function measured(
  kind: Kind,
  agent: Agent,
  method: "GET" | "POST",
  path: string,
  auth: string,
  params?: Record<string, string>,
): Promise<{ text: string; startedAt: number } | null> {
  const startedAt = performance.now();
  if (inWindow(startedAt)) requestsInWindow++;
  try {
    const res = await call(agent, method, path, auth, params);
    if (res.status !== 200) {
      fail(kind, `${res.status} ${res.text}`);
      return null;
    }
    if (inWindow(startedAt) && kind in latencies)
      latencies[kind as keyof typeof latencies].push(performance.now() - startedAt);
    return { text: res.text, startedAt };
  } catch (err) {
    fail(kind, (err as NodeJS.ErrnoException).code ?? String(err));
    return null;
  }
}

// ---- users ----

interface SimUser {
  index: number;
  id: number;
  auth: string;
  channels: number[];
  registering: boolean;
  queueId: string | null;
  lastEventId: number;
  presenceLastUpdateId: number;
  unread: number[];
}

const users: SimUser[] = input.users.map((u, index) => ({
  index,
  id: u.id,
  auth: `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`,
  channels: [],
  registering: next() < REGISTERING_SHARE,
  queueId: null,
  lastEventId: -1,
  presenceLastUpdateId: -1,
  unread: [],
}));
input.channels.forEach((c, k) => c.members.forEach((m) => users[m]!.channels.push(k)));

/** Per message token: when its send started, and the recipients still expected. */
const pendingDeliveries = new Map<string, { sentAt: number; waiting: Set<number>; measured: boolean }>();
let tokenSeq = 0;
const TOKEN = /\btok(\d+)x\b/;

async function register(user: SimUser, full: boolean): Promise<boolean> {
  const params = full ? MOBILE_REGISTER : { ...MOBILE_REGISTER, fetch_event_types: '["message"]' };
  const res = await measured("register", shortAgent, "POST", "/register", user.auth, params);
  if (!res) return false;
  const body = JSON.parse(res.text) as { queue_id: string; last_event_id: number };
  user.queueId = body.queue_id;
  user.lastEventId = body.last_event_id;
  return true;
}

async function poll(user: SimUser): Promise<void> {
  for (;;) {
    const res = await measured("events", pollAgent, "GET", "/events", user.auth, {
      queue_id: user.queueId!,
      last_event_id: String(user.lastEventId),
    });
    const at = performance.now();
    if (!res) {
      await sleep(1000);
      continue;
    }
    const events = (JSON.parse(res.text) as { events: Array<Record<string, unknown>> }).events;
    for (const event of events) {
      user.lastEventId = Math.max(user.lastEventId, event.id as number);
      if (event.type !== "message") continue;
      const message = event.message as { id: number; content: string; sender_id: number };
      if (message.sender_id !== user.id) user.unread.push(message.id);
      const token = TOKEN.exec(message.content)?.[1];
      const pending = token === undefined ? undefined : pendingDeliveries.get(token);
      if (pending?.waiting.delete(user.index) && pending.measured)
        latencies.delivery.push(at - pending.sentAt);
    }
  }
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;

/** A channel-mate to write to (anyone, for a user in no channel). */
function dmPartner(user: SimUser): SimUser {
  if (user.channels.length > 0) {
    for (let tries = 0; tries < 5; tries++) {
      const other = users[pick(input.channels[pick(user.channels)]!.members)]!;
      if (other !== user) return other;
    }
  }
  return users[(user.index + 1) % users.length]!;
}

async function sendMessage(user: SimUser): Promise<void> {
  const toChannel = user.channels.length > 0 && next() < CHANNEL_SHARE;
  const channel = toChannel ? input.channels[pick(user.channels)]! : null;
  const partner = channel ? null : dmPartner(user);
  const topic = `topic ${Math.floor(next() * 5)}`;
  if (next() < TYPING_SHARE) {
    const typing: Record<string, string> = channel
      ? { type: "stream", stream_id: String(channel.id), topic, op: "start" }
      : { type: "direct", to: JSON.stringify([partner!.id]), op: "start" };
    await measured("typing", shortAgent, "POST", "/typing", user.auth, typing);
    await sleep(1000 + next() * 2000);
    if (stopping) return;
  }
  const token = String(tokenSeq++);
  const content = `simulated message tok${token}x from user ${user.index}`;
  const recipients = channel ? channel.members.map((m) => users[m]!) : [user, partner!];
  const sentAt = performance.now();
  const waiting = new Set(recipients.filter((r) => r.queueId !== null).map((r) => r.index));
  pendingDeliveries.set(token, { sentAt, waiting, measured: inWindow(sentAt) });
  const params: Record<string, string> = channel
    ? { type: "stream", to: String(channel.id), topic, content }
    : { type: "direct", to: JSON.stringify([partner!.id]), content };
  const sent = await measured("send", shortAgent, "POST", "/messages", user.auth, params);
  if (!sent) pendingDeliveries.delete(token);
}

async function openNarrow(user: SimUser): Promise<void> {
  const narrow =
    user.channels.length > 0
      ? [{ operator: "channel", operand: input.channels[pick(user.channels)]!.id }]
      : [{ operator: "dm", operand: [dmPartner(user).id] }];
  await measured("narrow", shortAgent, "GET", "/messages", user.auth, {
    anchor: "first_unread",
    num_before: "25",
    num_after: "25",
    apply_markdown: "true",
    narrow: JSON.stringify(narrow),
  });
}

async function flushReads(user: SimUser): Promise<void> {
  if (user.unread.length === 0) return;
  const ids = user.unread.splice(0);
  await measured("flags", shortAgent, "POST", "/messages/flags", user.auth, {
    op: "add",
    flag: "read",
    messages: JSON.stringify(ids),
  });
}

async function pingPresence(user: SimUser): Promise<void> {
  const res = await measured("presence", shortAgent, "POST", "/users/me/presence", user.auth, {
    status: "active",
    new_user_input: "true",
    slim_presence: "true",
    last_update_id: String(user.presenceLastUpdateId),
  });
  if (res)
    user.presenceLastUpdateId = (
      JSON.parse(res.text) as { presence_last_update_id: number }
    ).presence_last_update_id;
}

/** Runs `action` every `everyMs` from `firstAt` (performance.now() time) until the run stops. */
async function every(firstAt: number, everyMs: number, action: () => Promise<void>): Promise<void> {
  for (let at = firstAt; ; at += everyMs) {
    await sleep(at - performance.now());
    if (stopping) return;
    await action();
  }
}

async function poisson(meanMs: number, action: () => Promise<void>): Promise<void> {
  for (;;) {
    await sleep(-Math.log(1 - next()) * meanMs);
    if (stopping) return;
    await action();
  }
}

/** One user's life from `startAt`: registers if it must, then polls and acts. */
async function live(user: SimUser, startAt: number): Promise<void> {
  await sleep(startAt - performance.now());
  if (user.registering) await register(user, true);
  // A failed registration was counted; without a queue the user stays away.
  if (user.queueId === null) return;
  const now = performance.now();
  void poll(user).catch((err: unknown) => fail("events", String(err)));
  const activities = [
    every(now + next() * PRESENCE_EVERY_MS, PRESENCE_EVERY_MS, () => pingPresence(user)),
    poisson(MESSAGE_MEAN_MS, () => sendMessage(user)),
    every(now + next() * NARROW_EVERY_MS, NARROW_EVERY_MS, () => openNarrow(user)),
    every(now + next() * READ_FLUSH_EVERY_MS, READ_FLUSH_EVERY_MS, () => flushReads(user)),
  ];
  await Promise.all(activities);
}

// Queues of the users already running, a few registrations at a time.
const running = users.filter((u) => !u.registering);
let cursor = 0;
await Promise.all(
  Array.from({ length: PREREGISTER_CONCURRENCY }, async () => {
    while (cursor < running.length) await register(running[cursor++]!, false);
  }),
);
say({ event: "ready", users: users.length, registering: users.length - running.length });

const start = performance.now();
windowStart = start + input.warmupSec * 1000;
windowEnd = windowStart + input.windowSec * 1000;
const lives = users.map((u) =>
  live(u, u.registering ? start + next() * (windowEnd - start) : start).catch((err: unknown) =>
    fail("events", String(err)),
  ),
);
// The generator's own event-loop delay: a generator too busy to keep its schedule shows here.
const lag = monitorEventLoopDelay({ resolution: 10 });
await sleep(windowStart - performance.now());
say({ event: "window" });
lag.enable();
await sleep(windowEnd - performance.now());
lag.disable();
say({ event: "window-end" });
// Drain: the users keep polling (and nothing else) until every measured event arrived.
const drainUntil = windowEnd + input.drainSec * 1000;
const missing = () =>
  [...pendingDeliveries.values()].filter((p) => p.measured).reduce((sum, p) => sum + p.waiting.size, 0);
stopping = true;
while (missing() > 0 && performance.now() < drainUntil) await sleep(200);
const lost = missing();
const sends = [...pendingDeliveries.values()].filter((p) => p.measured).length;
const stat = (values: number[]) => ({
  n: values.length,
  p50_ms: round(percentile(values, 50)),
  p99_ms: round(percentile(values, 99)),
});
say({
  event: "done",
  send: stat(latencies.send),
  delivery: stat(latencies.delivery),
  register: stat(latencies.register),
  narrow: stat(latencies.narrow),
  sends_measured: sends,
  requests_per_sec: round(requestsInWindow / input.windowSec, 1),
  generator_lag_p99_ms: round(lag.percentile(99) / 1e6),
  lost,
  failures,
  failure_samples: failureSamples,
});
void lives;
process.exit(0);
