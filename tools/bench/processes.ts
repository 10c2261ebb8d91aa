import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(BENCH_DIR, "..", "..", "..");
export const CHATD_BIN = join(ROOT, "bin", "chatd");

/** The server and the load generator run on different cores when there are two or more. */
export const CORES = availableParallelism();
export const SERVER_CORE = 0;
export const LOAD_CORE = CORES > 1 ? 1 : 0;

let tasksetAvailable: boolean | null = null;
async function hasTaskset(): Promise<boolean> {
  if (tasksetAvailable !== null) return tasksetAvailable;
  tasksetAvailable = await new Promise<boolean>((resolveCheck) => {
    const probe = spawn("taskset", ["-c", "0", "true"], { stdio: "ignore" });
    probe.on("error", () => resolveCheck(false));
    probe.on("exit", (code) => resolveCheck(code === 0));
  });
  return tasksetAvailable;
}

/** Spawns `node args...`, pinned to a core when taskset exists. */
export async function spawnNode(
  args: string[],
  options: { core: number; env?: NodeJS.ProcessEnv; stdio?: "pipe" | "ignore" },
): Promise<ChildProcess> {
  const env = { ...process.env, ...options.env };
  const stdio = options.stdio ?? "pipe";
  if (await hasTaskset()) {
    return spawn("taskset", ["-c", String(options.core), process.execPath, ...args], {
      env,
      stdio: ["ignore", stdio, stdio],
    });
  }
  return spawn(process.execPath, args, { env, stdio: ["ignore", stdio, stdio] });
}

/** Writes a child's input to a file (inputs can exceed the argument-size limit). */
export function inputFile(input: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "chatd-bench-in-"));
  const file = join(dir, "input.json");
  writeFileSync(file, JSON.stringify(input));
  return file;
}

/** Reads the input a parent passed with inputFile(). */
export function readInput<T>(): T {
  return JSON.parse(readFileSync(process.argv[2] ?? "", "utf8")) as T;
}

/** Runs a bench child script and parses the one JSON line it prints last. */
export async function runJson<T>(script: string, input: unknown, core = LOAD_CORE): Promise<T> {
  const child = await spawnNode([join(BENCH_DIR, script), inputFile(input)], { core });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((r) => child.on("exit", r));
  if (code !== 0) throw new Error(`${script} exited with ${code}: ${err.slice(-2000)}`);
  const last = out.trim().split("\n").pop() ?? "";
  return JSON.parse(last) as T;
}

/** Waits until `url` answers 200. */
export async function waitForHttp(url: string, child?: ChildProcess, timeoutMs = 30_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.ok) return performance.now() - started;
    } catch {
      // not up yet
    }
    if (performance.now() - started > timeoutMs) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Resident set size of a process in MB, from /proc (Linux). */
export async function rssMb(pid: number): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

let clockTicks: number | null = null;

/**
 * CPU time (user + system) a process has used so far, in seconds, from /proc (Linux); with
 * `reaped`, plus what its exited children used (once it waited for them).
 */
export async function cpuSeconds(pid: number, reaped = false): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  clockTicks ??= Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th,
  // cutime and cstime the 16th and 17th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const children = reaped ? Number(fields[13]) + Number(fields[14]) : 0;
  return (Number(fields[11]) + Number(fields[12]) + children) / clockTicks;
}

/** A process and its descendants now, from /proc (Linux); those that exit meanwhile are left out. */
export async function processTree(pid: number): Promise<number[]> {
  const { readFile } = await import("node:fs/promises");
  const found: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    const current = pending.pop()!;
    try {
      const children = await readFile(`/proc/${current}/task/${current}/children`, "utf8");
      found.push(current);
      pending.push(...children.split(" ").filter(Boolean).map(Number));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * CPU seconds of a process and its live descendants; with `reaped`, plus what the root's
 * exited children used (PostgreSQL: backends that ended during the window).
 */
export async function treeCpuSeconds(pid: number, reaped = false): Promise<number> {
  let total = 0;
  for (const current of await processTree(pid)) {
    try {
      total += await cpuSeconds(current, reaped && current === pid);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
