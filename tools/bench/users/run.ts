// `npm run bench -- --users`: how many simulated people (simulation.ts) one chatd process
// pinned to one core serves within the limits below, growing the count step by step and then
// bisecting between the last passing and the first failing count (to BLOCK users).
import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  BENCH_DIR,
  CHATD_BIN,
  CORES,
  LOAD_CORE,
  SERVER_CORE,
  cpuSeconds,
  inputFile,
  stopProcess,
  waitForHttp,
} from "../processes.js";
import { round } from "../stats.js";
import { BLOCK, forgetSavedQueues, growUsersDataset } from "./dataset.js";
import type { SimulationInput } from "./simulation.js";

export const STEPS = [500, 1000, 2000, 4000, 7000, 10_000];
export const LIMITS = { send_p99_ms: 100, delivery_p99_ms: 250, register_p99_ms: 500 };

interface Stat {
  n: number;
  p50_ms: number;
  p99_ms: number;
}

interface SimulationResult {
  send: Stat;
  delivery: Stat;
  register: Stat;
  narrow: Stat;
  sends_measured: number;
  requests_per_sec: number;
  /** The generator's event-loop delay p99 over the window (high: the figures are its own). */
  generator_lag_p99_ms: number;
  lost: number;
  failures: Record<string, number>;
  failure_samples: string[];
}

export interface StepResult extends SimulationResult {
  users: number;
  rss_mb: number;
  cpu_pct: number;
  /** The first limit this step broke, or null when it passed. */
  limit: string | null;
}

export interface UsersOptions {
  driver: "sqlite3" | "better-sqlite3";
  dataDir: string;
  quick: boolean;
  /** chatd's `serve --workers N` (1: a single process pinned to the server core). */
  workers: number;
  log: (line: string) => void;
  /** Largest count tried (default: the last of STEPS). */
  maxUsers?: number;
  /** Run this one count only (profiling: `--users-at N`), not the search. */
  usersAt?: number;
  /** Node options before chatd's script (e.g. `--cpu-prof --cpu-prof-dir DIR`). */
  nodeArgs?: string[];
  /** Extra environment for chatd (e.g. CHATD_LOG_LEVEL=info with serverLog). */
  serverEnv?: NodeJS.ProcessEnv;
  /** A file chatd's stdout and stderr are appended to (default: discarded). */
  serverLog?: string;
  freePort: () => Promise<number>;
}

/** Runs `node args` on the given cores with the open-file limit raised to the hard limit. */
function spawnWithFiles(
  args: string[],
  cores: string,
  env: NodeJS.ProcessEnv,
  stdio: "pipe" | "ignore",
  logFile?: string,
) {
  const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
  const quoted = [process.execPath, ...args].map(quote).join(" ");
  const pin = CORES > 1 ? `taskset -c ${cores} ` : "";
  const output = logFile ? ` >>${quote(logFile)} 2>&1` : "";
  return spawn("sh", ["-c", `ulimit -n "$(ulimit -Hn)"; exec ${pin}${quoted}${output}`], {
    env: { ...process.env, ...env },
    stdio: ["ignore", stdio, stdio],
  });
}

/** Resident memory of a process and its descendants (the cluster's workers), in MB. */
async function treeRssMb(pid: number): Promise<number> {
  let kb = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const current = pending.pop()!;
    try {
      const status = await readFile(`/proc/${current}/status`, "utf8");
      kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      const children = await readFile(`/proc/${current}/task/${current}/children`, "utf8");
      pending.push(...children.split(" ").filter(Boolean).map(Number));
    } catch {
      // gone meanwhile
    }
  }
  return kb / 1024;
}

async function treeCpuSeconds(pid: number): Promise<number> {
  let total = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const current = pending.pop()!;
    try {
      total += await cpuSeconds(current);
      const children = await readFile(`/proc/${current}/task/${current}/children`, "utf8");
      pending.push(...children.split(" ").filter(Boolean).map(Number));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** The first limit a step broke, in words, or null. */
export function brokenLimit(r: SimulationResult): string | null {
  const failed = Object.values(r.failures).reduce((a, b) => a + b, 0);
  if (failed > 0) return `${failed} failed requests (${JSON.stringify(r.failures)})`;
  if (r.lost > 0) return `${r.lost} events lost`;
  if (!(r.send.p99_ms <= LIMITS.send_p99_ms)) return `POST /messages p99 ${r.send.p99_ms} ms`;
  if (!(r.delivery.p99_ms <= LIMITS.delivery_p99_ms)) return `event delivery p99 ${r.delivery.p99_ms} ms`;
  if (r.register.n > 0 && !(r.register.p99_ms <= LIMITS.register_p99_ms))
    return `POST /register p99 ${r.register.p99_ms} ms`;
  return null;
}

async function startChatd(options: UsersOptions): Promise<{ child: ChildProcess; url: string }> {
  const port = await options.freePort();
  const workers = options.workers > 1 ? ["--workers", String(options.workers)] : [];
  const child = spawnWithFiles(
    [
      ...(options.nodeArgs ?? []),
      CHATD_BIN,
      "--data-dir",
      options.dataDir,
      "serve",
      "--port",
      String(port),
      ...workers,
    ],
    options.workers > 1 ? `0-${CORES - 1}` : String(SERVER_CORE),
    {
      CHATD_LOG_LEVEL: "warn",
      CHATD_DB_DRIVER: options.driver,
      CHATD_RATE_LIMITING: "false",
      ...(options.workers > 1 ? { CHATD_SQLITE_WORKERS: "1" } : {}),
      ...options.serverEnv,
    },
    "ignore",
    options.serverLog,
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/api/v1/server_settings`, child, 60_000);
  return { child, url };
}

/** One step: a fresh server over the data set's first `users` users, the simulation against it. */
export async function runStep(options: UsersOptions, users: number): Promise<StepResult> {
  const dataset = await growUsersDataset({ dataDir: options.dataDir, driver: options.driver, users });
  await forgetSavedQueues(options.dataDir, options.driver);
  const chatd = await startChatd(options);
  let simulation: ChildProcess | null = null;
  try {
    const input: SimulationInput = {
      base: chatd.url,
      users: dataset.users.slice(0, users),
      channels: dataset.channels.filter((c) => c.members.every((m) => m < users)),
      warmupSec: options.quick ? 10 : 20,
      windowSec: options.quick ? 20 : 60,
      drainSec: 10,
      seed: users,
    };
    simulation = spawnWithFiles(
      [join(BENCH_DIR, "users", "simulation.js"), inputFile(input)],
      String(LOAD_CORE),
      {},
      "pipe",
    );
    let stderr = "";
    simulation.stderr!.on("data", (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    const pid = chatd.child.pid!;
    let peakRss = 0;
    let sampler: NodeJS.Timeout | null = null;
    let cpuFrom = { cpu: 0, at: 0 };
    let cpuPct = NaN;
    let result: SimulationResult | null = null;
    for await (const line of createInterface({ input: simulation.stdout! })) {
      const message = JSON.parse(line) as { event: string } & SimulationResult;
      if (message.event === "ready") options.log(`    ${users} users: queues registered, warming up`);
      if (message.event === "window") {
        cpuFrom = { cpu: await treeCpuSeconds(pid), at: performance.now() };
        sampler = setInterval(() => {
          void treeRssMb(pid).then((mb) => (peakRss = Math.max(peakRss, mb)));
        }, 1000);
      }
      if (message.event === "window-end") {
        if (sampler) clearInterval(sampler);
        peakRss = Math.max(peakRss, await treeRssMb(pid));
        cpuPct =
          (100 * ((await treeCpuSeconds(pid)) - cpuFrom.cpu)) / ((performance.now() - cpuFrom.at) / 1000);
      }
      if (message.event === "done") result = message;
    }
    if (!result) throw new Error(`users simulation ended without a result: ${stderr}`);
    const step: StepResult = {
      ...result,
      users,
      rss_mb: round(peakRss, 1),
      cpu_pct: round(cpuPct, 1),
      limit: null,
    };
    step.limit = brokenLimit(step);
    options.log(
      `    ${users} users: send p99 ${step.send.p99_ms} ms (${step.send.n}), delivery p99 ${step.delivery.p99_ms} ms ` +
        `(${step.delivery.n}), register p99 ${step.register.p99_ms} ms (${step.register.n}), ` +
        `${step.requests_per_sec} req/s, RSS ${step.rss_mb} MB, CPU ${step.cpu_pct} %, ` +
        `generator lag p99 ${step.generator_lag_p99_ms} ms: ${step.limit ?? "pass"}`,
    );
    for (const sample of step.failure_samples) options.log(`      failure: ${sample}`);
    return step;
  } finally {
    if (simulation) await stopProcess(simulation);
    await stopProcess(chatd.child);
  }
}

/** Grows the count through STEPS until a step fails, then bisects to BLOCK users. */
export async function findUsersPerCore(
  options: UsersOptions,
): Promise<{ best: StepResult | null; firstFailing: StepResult | null }> {
  if (options.usersAt !== undefined) {
    const step = await runStep(options, options.usersAt);
    return step.limit ? { best: null, firstFailing: step } : { best: step, firstFailing: null };
  }
  const max = options.maxUsers ?? STEPS[STEPS.length - 1]!;
  const steps = [...STEPS.filter((n) => n < max), max];
  let best: StepResult | null = null;
  let firstFailing: StepResult | null = null;
  for (const users of steps) {
    const step = await runStep(options, users);
    if (step.limit) {
      firstFailing = step;
      break;
    }
    best = step;
  }
  while (firstFailing && firstFailing.users - (best?.users ?? 0) > BLOCK) {
    const low = best?.users ?? 0;
    const middle = Math.max(BLOCK, Math.round((low + firstFailing.users) / 2 / BLOCK) * BLOCK);
    if (middle <= low || middle >= firstFailing.users) break;
    const step = await runStep(options, middle);
    if (step.limit) firstFailing = step;
    else best = step;
  }
  return { best, firstFailing };
}
