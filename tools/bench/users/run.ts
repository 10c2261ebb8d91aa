// `npm run bench -- --users`: how many simulated people (simulation.ts) one chatd process
// pinned to one core serves within the limits below, growing the count step by step and then
// bisecting between the last passing and the first failing count (to BLOCK users). Over
// PostgreSQL (`driver: "pg"`) the server's processes are pinned to chatd's cores, their CPU is
// measured beside chatd's, and chatd times its write transactions' lock (lock-timings.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  BENCH_DIR,
  CHATD_BIN,
  CORES,
  LOAD_CORE,
  SERVER_CORE,
  inputFile,
  processTree,
  stopProcess,
  treeCpuSeconds,
  waitForHttp,
} from "../processes.js";
import { pinPostgres, postgresServerPid } from "../postgres.js";
import { round } from "../stats.js";
import { BLOCK, forgetSavedQueues, growUsersDataset, type UsersStorage } from "./dataset.js";
import { lockStats, readLockTimings, type LockStat } from "./lock-timings.js";
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
  /** chatd's CPU milliseconds per simulated user per second (cpu_pct * 10 / users). */
  cpu_ms_per_user_s: number;
  /** PostgreSQL's processes' CPU over the window, in % of a core (null: SQLite, or not measurable). */
  db_cpu_pct: number | null;
  /** The write lock's waits and holds over the window by kind of transaction (PostgreSQL only). */
  locks: Record<string, LockStat> | null;
  /** The first limit this step broke, or null when it passed. */
  limit: string | null;
}

export interface UsersOptions {
  /** A SQLite driver, or "pg": chatd over PostgreSQL, in `databaseUrl`. */
  driver: "sqlite3" | "better-sqlite3" | "pg";
  /** The PostgreSQL database of the data set (with driver "pg"). */
  databaseUrl?: string;
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

/** Where the data set of `options` lives. */
function storage(options: UsersOptions): UsersStorage {
  if (options.driver !== "pg") return { dataDir: options.dataDir, driver: options.driver };
  if (!options.databaseUrl) throw new Error("users on PostgreSQL need a database URL");
  return { dataDir: options.dataDir, driver: "sqlite3", databaseUrl: options.databaseUrl };
}

/** chatd's cores: one, or every core for `serve --workers N`. */
const serverCores = (options: UsersOptions) => (options.workers > 1 ? `0-${CORES - 1}` : String(SERVER_CORE));

/** chatd's environment for its database (and, on PostgreSQL, the lock timings into `lockDir`). */
function databaseEnv(options: UsersOptions, lockDir: string): NodeJS.ProcessEnv {
  if (options.driver === "pg")
    return { CHATD_DATABASE_URL: options.databaseUrl, CHATD_LOCK_TIMINGS_DIR: lockDir };
  return {
    CHATD_DB_DRIVER: options.driver,
    ...(options.workers > 1 ? { CHATD_SQLITE_WORKERS: "1" } : {}),
  };
}

async function startChatd(
  options: UsersOptions,
  lockDir: string,
): Promise<{ child: ChildProcess; url: string }> {
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
    serverCores(options),
    {
      CHATD_LOG_LEVEL: "warn",
      ...databaseEnv(options, lockDir),
      CHATD_RATE_LIMITING: "false",
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
  const dataset = await growUsersDataset({ ...storage(options), users });
  await forgetSavedQueues(storage(options));
  const postgres = options.databaseUrl ? await postgresServerPid(options.databaseUrl) : null;
  // chatd's cores hold PostgreSQL too: one core serves chatd and its database, as with SQLite.
  if (postgres && !pinPostgres(await processTree(postgres), serverCores(options)))
    options.log("    could not pin PostgreSQL to chatd's cores");
  const lockDir = mkdtempSync(join(tmpdir(), "chatd-bench-locks-"));
  const chatd = await startChatd(options, lockDir);
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
    let cpuFrom = { cpu: 0, db: 0, at: 0, wall: 0 };
    let cpuPct = NaN;
    let dbCpuPct: number | null = null;
    let wallEnd = 0;
    let result: SimulationResult | null = null;
    for await (const line of createInterface({ input: simulation.stdout! })) {
      const message = JSON.parse(line) as { event: string } & SimulationResult;
      if (message.event === "ready") options.log(`    ${users} users: queues registered, warming up`);
      if (message.event === "window") {
        const db = postgres ? await treeCpuSeconds(postgres, true) : 0;
        cpuFrom = { cpu: await treeCpuSeconds(pid), db, at: performance.now(), wall: Date.now() };
        sampler = setInterval(() => {
          void treeRssMb(pid).then((mb) => (peakRss = Math.max(peakRss, mb)));
        }, 1000);
      }
      if (message.event === "window-end") {
        if (sampler) clearInterval(sampler);
        peakRss = Math.max(peakRss, await treeRssMb(pid));
        const cpu = await treeCpuSeconds(pid);
        const db = postgres ? await treeCpuSeconds(postgres, true) : 0;
        const seconds = (performance.now() - cpuFrom.at) / 1000;
        cpuPct = (100 * (cpu - cpuFrom.cpu)) / seconds;
        if (postgres) dbCpuPct = (100 * (db - cpuFrom.db)) / seconds;
        wallEnd = Date.now();
      }
      if (message.event === "done") result = message;
    }
    if (!result) throw new Error(`users simulation ended without a result: ${stderr}`);
    // chatd writes its timings every second: the drain after the window outlasts that.
    const locks =
      options.driver === "pg" ? lockStats(await readLockTimings(lockDir), cpuFrom.wall, wallEnd) : null;
    const step: StepResult = {
      ...result,
      users,
      rss_mb: round(peakRss, 1),
      cpu_pct: round(cpuPct, 1),
      cpu_ms_per_user_s: round((cpuPct * 10) / users, 3),
      db_cpu_pct: dbCpuPct === null ? null : round(dbCpuPct, 1),
      locks,
      limit: null,
    };
    step.limit = brokenLimit(step);
    options.log(
      `    ${users} users: send p99 ${step.send.p99_ms} ms (${step.send.n}), delivery p99 ${step.delivery.p99_ms} ms ` +
        `(${step.delivery.n}), register p99 ${step.register.p99_ms} ms (${step.register.n}), ` +
        `${step.requests_per_sec} req/s, RSS ${step.rss_mb} MB, CPU ${step.cpu_pct} %, ` +
        `generator lag p99 ${step.generator_lag_p99_ms} ms: ${step.limit ?? "pass"}`,
    );
    if (step.db_cpu_pct !== null) options.log(`      PostgreSQL CPU ${step.db_cpu_pct} %`);
    for (const [kind, l] of Object.entries(step.locks ?? {}))
      options.log(
        `      lock ${kind}: ${l.n} transactions (${l.items_mean} items each), hold p50 ${l.hold_p50_ms} ` +
          `p99 ${l.hold_p99_ms} ms, wait p99 ${l.wait_p99_ms} ms, held ${l.busy_pct} % of the window`,
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
