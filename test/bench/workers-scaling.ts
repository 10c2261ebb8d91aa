// `npm run bench -- --workers N`: chatd as `serve --workers N` against a plain `serve` (one
// process) over the same data set, alternating in the same run: GET /users/me, GET
// /users/me/subscriptions and message sends, each as the ratio of N workers to one; then the
// cross-process delivery latency (a long-poll parked on worker 0, the message sent through
// worker 1: the event's arrival after the send's answer). The servers are not pinned to a
// core (the point is to use several); the load generator stays on its core.
import { spawn, type ChildProcess } from "node:child_process";
import type { BenchUser, Dataset } from "./dataset.js";
import { CHATD_BIN, runJson, stopProcess, waitForHttp } from "./processes.js";
import { databaseEnv } from "./postgres.js";
import { median, round } from "./stats.js";
import { freePort } from "../helpers/cli.js";
import { clientsOnWorkers } from "../helpers/workers.js";

export interface WorkersOptions {
  dataset: Dataset;
  workers: number;
  database: "sqlite" | "postgres";
  rounds: number;
  loadSeconds: number;
  /** Sends timed for the delivery latency. */
  sends: number;
  log: (line: string) => void;
}

interface LoadResult {
  rps: number;
  total: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  errors: number;
}

const basic = (u: BenchUser) => `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`;

async function startServer(
  options: WorkersOptions,
  workers: number,
): Promise<{ child: ChildProcess; url: string; port: number }> {
  const port = await freePort();
  const args = [CHATD_BIN, "--data-dir", options.dataset.dataDir, "serve", "--port", String(port)];
  if (workers > 1) args.push("--workers", String(workers));
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      CHATD_LOG_LEVEL: "warn",
      CHATD_RATE_LIMITING: "false",
      // Several workers over SQLite are refused unless asked for (docs/operations.md, "Several workers").
      ...(options.database === "sqlite" ? { CHATD_SQLITE_WORKERS: "1" } : {}),
      ...databaseEnv(options.dataset.dataDir),
    },
    stdio: "ignore",
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/api/v1/server_settings`, child, 120_000);
  if (workers > 1) {
    // Every worker is up once each has answered (the first may answer alone for a moment).
    const wanted = Array.from({ length: workers }, (_, i) => String(i));
    const clients = await clientsOnWorkers(port, basic(options.dataset.users[0]!), wanted);
    for (const client of clients.values()) client.close();
  }
  await warmUp(options, url);
  return { child, url, port };
}

/** A few of each request first: the first send loads the Markdown engine, the first reads fill caches. */
async function warmUp(options: WorkersOptions, url: string): Promise<void> {
  const owner = options.dataset.users[0]!;
  const headers = { authorization: basic(owner) };
  for (let i = 0; i < 5; i++) {
    await Promise.all([
      fetch(`${url}/api/v1/users/me`, { headers }).then((r) => r.arrayBuffer()),
      fetch(`${url}/api/v1/users/me/subscriptions`, { headers }).then((r) => r.arrayBuffer()),
      fetch(`${url}/api/v1/messages`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          type: "stream",
          to: String(options.dataset.channels[0]!.id),
          topic: "warm-up",
          content: "warm-up",
        }).toString(),
      }).then((r) => r.arrayBuffer()),
    ]);
  }
}

/** The three throughputs on one server, in req/s or msg/s. */
async function throughputs(options: WorkersOptions, url: string): Promise<Record<string, number>> {
  const owner = options.dataset.users[0]!;
  const fifty = options.dataset.channels[0]!;
  const load = async (path: string, extra: Record<string, unknown> = {}, user = owner) => {
    const run = await runJson<LoadResult>("load.js", {
      url: `${url}/api/v1${path}`,
      headers: { authorization: basic(user), "content-type": "application/x-www-form-urlencoded" },
      connections: 10,
      durationSec: options.loadSeconds,
      ...extra,
    });
    if (run.non2xx > 0 || run.errors > 0)
      throw new Error(`${path}: ${run.non2xx} non-2xx, ${run.errors} errors`);
    // Completed requests over the whole run (autocannon's per-second average reads 0 when answers are slow).
    return run.total / options.loadSeconds;
  };
  return {
    read_users_me_rps: await load("/users/me"),
    read_subscriptions_rps: await load("/users/me/subscriptions"),
    send_message_msgs: await load("/messages", {
      method: "POST",
      // As in the main send scenario: one connection per subscriber of the channel.
      connections: 50,
      body: new URLSearchParams({
        type: "stream",
        to: String(fifty.id),
        topic: "workers",
        content: "hello @**User 1** :smile:",
      }).toString(),
    }),
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** Register on worker 0, send through worker 1: the event's arrival after the send's answer. */
async function crossProcessDelivery(options: WorkersOptions, port: number) {
  const owner = options.dataset.users[0]!;
  const fifty = options.dataset.channels[0]!;
  const clients = await clientsOnWorkers(port, basic(owner), ["0", "1"]);
  const [home, other] = [clients.get("0")!, clients.get("1")!];
  try {
    const state = (await home.send("POST", "/register", { event_types: ["message"] })).body;
    const queueId = state.queue_id as string;
    let last = state.last_event_id as number;
    const added: number[] = [];
    let lost = 0;
    for (let i = 0; i < options.sends; i++) {
      const arrived = home
        .send("GET", "/events", { queue_id: queueId, last_event_id: last })
        .then((reply) => {
          const events = reply.body.events as Array<{ id: number; type: string }>;
          last = events.at(-1)?.id ?? last;
          return { at: performance.now(), real: events.some((e) => e.type === "message") };
        });
      await new Promise((r) => setTimeout(r, 5)); // the poll is parked
      const sent = await other.send("POST", "/messages", {
        type: "stream",
        to: fifty.id,
        topic: "cross-process",
        content: `m${i}`,
      });
      if (sent.status !== 200) throw new Error(`send through worker 1 answered ${sent.status}`);
      const answered = performance.now();
      const { at, real } = await arrived;
      if (real) added.push(Math.max(0, at - answered));
      else lost++;
    }
    await home.send("DELETE", "/events", { queue_id: queueId });
    return { p50_ms: round(percentile(added, 50), 1), p99_ms: round(percentile(added, 99), 1), lost };
  } finally {
    home.close();
    other.close();
  }
}

export async function workersScenarios(options: WorkersOptions) {
  const n = options.workers;
  const database = options.database;
  const byName = new Map<string, { one: number[]; many: number[]; ratios: number[] }>();
  for (let r = 0; r < options.rounds; r++) {
    const measured: Array<Record<string, number>> = [];
    for (const workers of [1, n]) {
      options.log(`  round ${r + 1}: ${workers} worker(s)`);
      const server = await startServer(options, workers);
      try {
        measured.push(await throughputs(options, server.url));
      } finally {
        await stopProcess(server.child);
      }
    }
    for (const name of Object.keys(measured[0]!)) {
      const entry = byName.get(name) ?? { one: [], many: [], ratios: [] };
      entry.one.push(measured[0]![name]!);
      entry.many.push(measured[1]![name]!);
      if (measured[0]![name]! > 0) entry.ratios.push(measured[1]![name]! / measured[0]![name]!);
      byName.set(name, entry);
    }
  }
  const scenarios: Array<{
    name: string;
    value: number;
    unit: string;
    baseline: number | null;
    ratio: number | null;
    database: "sqlite" | "postgres";
    target?: string;
    ratio_min?: number;
    ratio_max?: number;
    rounds?: number;
  }> = [];
  for (const [name, { one, many, ratios }] of byName) {
    if (ratios.length === 0) throw new Error(`${name}: one worker completed nothing`);
    const short = name.replace(/^read_/, "").replace(/_(rps|msgs)$/, "");
    scenarios.push({
      name: `workers_${n}_${name}`,
      value: round(median(many), 0),
      unit: name.endsWith("msgs") ? "msg/s" : "req/s",
      baseline: round(median(one), 0),
      ratio: round(median(ratios), 3),
      // The spread of the rounds' ratios.
      ratio_min: round(Math.min(...ratios), 3),
      ratio_max: round(Math.max(...ratios), 3),
      rounds: ratios.length,
      database,
    });
    scenarios.push({
      name: `workers_scaling_${short}_ratio`,
      value: round(median(ratios), 3),
      unit: `${n} workers / 1`,
      baseline: null,
      ratio: null,
      database,
    });
  }
  if (n >= 2) {
    options.log(`  cross-process delivery: ${options.sends} sends`);
    const server = await startServer(options, n);
    try {
      const delivery = await crossProcessDelivery(options, server.port);
      const added = (name: string, value: number, target = "") =>
        scenarios.push({ name, value, unit: "ms", baseline: null, ratio: null, database, target });
      added("cross_process_delivery_p50_ms", delivery.p50_ms);
      added("cross_process_delivery_p99_ms", delivery.p99_ms, "< 50");
      scenarios.push({
        name: "cross_process_events_lost",
        value: delivery.lost,
        unit: "events",
        baseline: null,
        ratio: null,
        database,
        target: "0",
      });
    } finally {
      await stopProcess(server.child);
    }
  }
  return scenarios;
}
