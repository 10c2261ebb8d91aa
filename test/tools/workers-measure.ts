// Measures `chatd serve --workers N` on this machine:
//   node dist/test/tools/workers-measure.js [--seconds 5] [--connections 8]
// 1. Cross-process delivery latency: a long-poll parked on worker 0, a message sent
//    through worker 1; the event's arrival after the send's answer (p50/p99, 300 sends).
// 2. Throughput of message sends and of GET /messages with 1 worker and with 2.
// Prints one line per figure. The machine may be shared: run it twice and read the spread.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, initDataDir, spawnServe, waitForServer } from "../helpers/cli.js";
import { basicAuth } from "../helpers/cli.js";
import { clientsOnWorkers, PinnedClient, spawnWorkers } from "../helpers/workers.js";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback;
const SECONDS = option("--seconds", 5);
const CONNECTIONS = option("--connections", 8);
const SENDS = 300;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
};

async function start(workers: number) {
  const dir = mkdtempSync(join(tmpdir(), "chatd-measure-"));
  const owner = initDataDir(dir);
  const port = await freePort();
  const env = { CHATD_RATE_LIMITING: "false", CHATD_LOG_LEVEL: "error" };
  const child: ChildProcess =
    workers > 1 ? spawnWorkers(dir, port, workers, env) : spawnServe(dir, port, env);
  // A loaded machine starts slowly: up to a minute.
  for (let attempt = 0; ; attempt++) {
    try {
      await waitForServer(`http://127.0.0.1:${port}`, child);
      break;
    } catch (err) {
      if (attempt === 5) throw err;
    }
  }
  const auth = basicAuth(owner.email, owner.api_key).authorization;
  const stop = async () => {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  };
  return { port, auth, stop };
}

async function latency(): Promise<{ p50_ms: number; p99_ms: number; max_ms: number }> {
  const { port, auth, stop } = await start(2);
  const clients = await clientsOnWorkers(port, auth, ["0", "1"]);
  const [home, other] = [clients.get("0")!, clients.get("1")!];
  const state = (await home.send("POST", "/register", { event_types: ["message"] })).body;
  const queueId = state.queue_id as string;
  let last = state.last_event_id as number;
  const added: number[] = [];
  for (let i = 0; i < SENDS; i++) {
    const arrived = home.send("GET", "/events", { queue_id: queueId, last_event_id: last }).then((reply) => {
      const events = reply.body.events as Array<{ id: number; type: string }>;
      last = events.at(-1)?.id ?? last;
      return { at: performance.now(), real: events.some((e) => e.type === "message") };
    });
    await new Promise((r) => setTimeout(r, 5)); // the poll is parked
    await other.send("POST", "/messages", { type: "stream", to: "general", topic: "t", content: `m${i}` });
    const answered = performance.now();
    const { at, real } = await arrived;
    if (real) added.push(Math.max(0, at - answered));
  }
  home.close();
  other.close();
  await stop();
  return { p50_ms: percentile(added, 50), p99_ms: percentile(added, 99), max_ms: percentile(added, 100) };
}

/** Requests per second over CONNECTIONS keep-alive connections for SECONDS. */
async function throughput(workers: number, kind: "send" | "read"): Promise<number> {
  const { port, auth, stop } = await start(workers);
  const deadline = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      const client = new PinnedClient(port, auth);
      while (performance.now() < deadline) {
        const reply =
          kind === "send"
            ? await client.send("POST", "/messages", {
                type: "stream",
                to: "general",
                topic: "t",
                content: `m${i}`,
              })
            : await client.send("GET", "/messages", { anchor: "newest", num_before: 20, num_after: 0 });
        if (reply.status === 200) done++;
      }
      client.close();
    }),
  );
  await stop();
  return Math.round(done / SECONDS);
}

const report = (name: string, value: unknown) => process.stdout.write(`${name}: ${JSON.stringify(value)}\n`);
report("cross_worker_event_latency", await latency());
for (const kind of ["send", "read"] as const) {
  report(`${kind}_rps`, { workers_1: await throughput(1, kind), workers_2: await throughput(2, kind) });
}
