import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, basicAuth, exitedWithin, initDataDir, waitForServer, type InitResult } from "./cli.js";
import { freePort } from "./ports.js";
import { cliDatabaseEnv } from "./postgres.js";

/** `chatd serve --workers N` as an operator runs it, and clients pinned to one worker each. */

export function spawnWorkers(
  dataDir: string,
  port: number,
  workers: number,
  env: NodeJS.ProcessEnv = {},
): ChildProcess {
  return spawn(
    process.execPath,
    [BIN, "--data-dir", dataDir, "serve", "--port", String(port), "--workers", String(workers)],
    {
      // Several workers over SQLite are refused unless asked for (docs/operations.md, "Several workers").
      env: {
        ...process.env,
        CHATD_LOG_LEVEL: "warn",
        CHATD_SQLITE_WORKERS: "1",
        ...cliDatabaseEnv(["--data-dir", dataDir], env),
        ...env,
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
}

export interface Reply {
  status: number;
  worker: string | undefined;
  body: Record<string, unknown>;
}

/** One keep-alive connection: every request it makes lands on the same worker. */
export class PinnedClient {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  worker: string | undefined;

  constructor(
    private readonly port: number,
    private readonly auth: string,
  ) {}

  send(method: string, path: string, params: Record<string, unknown> = {}): Promise<Reply> {
    const form = new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [
        k,
        typeof v === "string" ? v : JSON.stringify(v),
      ]),
    ).toString();
    const inQuery = method === "GET" || method === "DELETE";
    const url = `/api/v1${path}${inQuery && form ? `?${form}` : ""}`;
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: this.port,
          path: url,
          method,
          agent: this.agent,
          headers: {
            authorization: this.auth,
            ...(inQuery ? {} : { "content-type": "application/x-www-form-urlencoded" }),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => {
            const worker = res.headers["x-chatd-worker"] as string | undefined;
            this.worker = worker;
            try {
              resolve({
                status: res.statusCode ?? 0,
                worker,
                body: JSON.parse(text) as Record<string, unknown>,
              });
            } catch (err) {
              reject(err instanceof Error ? err : new Error(String(err)));
            }
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      if (!inQuery) req.write(form);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** One client on each of the given workers (the cluster hands connections out in turn). */
export async function clientsOnWorkers(
  port: number,
  auth: string,
  workers: string[],
): Promise<Map<string, PinnedClient>> {
  const found = new Map<string, PinnedClient>();
  // Workers start one after the other: the first may answer alone for a moment.
  for (let attempt = 0; attempt < 100 && found.size < workers.length; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 50));
    const client = new PinnedClient(port, auth);
    const reply = await client.send("GET", "/server_settings");
    if (reply.worker !== undefined && workers.includes(reply.worker) && !found.has(reply.worker)) {
      found.set(reply.worker, client);
    } else {
      client.close();
    }
  }
  if (found.size < workers.length) throw new Error(`no connection reached workers ${workers.join(", ")}`);
  return found;
}

/** The pids of the processes whose parent is `parentPid` (Linux). */
export function childPids(parentPid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        // Field 4 of stat is the parent; the command (field 2) is in parentheses.
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parentPid;
      } catch {
        return false;
      }
    });
}

/** Whether `pid` is a process that has not exited (a zombie awaiting its reaper has) (Linux). */
export function processRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** SCHED_IDLE, as /proc/<pid>/stat gives a process's scheduling policy. */
export const SCHED_IDLE = 5;

/** The scheduling policy of `pid` (Linux: field 41 of /proc/<pid>/stat; 0 is SCHED_OTHER). */
export function schedulingPolicy(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[38]);
}

/** Whether this system lets a process run a command under SCHED_IDLE (util-linux's chrt). */
export const idleSchedulingAvailable = () =>
  spawnSync("chrt", ["--idle", "0", "true"], { stdio: "ignore" }).status === 0;

/** The pid of worker `index` of the cluster whose primary is `primaryPid` (Linux). */
export function workerPid(primaryPid: number, index: number): number {
  const children = childPids(primaryPid);
  for (const pid of children) {
    const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    if (env.includes(`CHATD_WORKER_INDEX=${index}`)) return pid;
  }
  throw new Error(`worker ${index} not found`);
}

/** A `chatd serve --workers 2` on a fresh data directory, and a client on each worker. */
export interface TwoWorkers {
  readonly dir: string;
  readonly port: number;
  readonly server: ChildProcess;
  /** The realm's owner (`chatd init`). */
  readonly owner: InitResult;
  /** The owner's clients, on worker 0 and on worker 1. */
  readonly w0: PinnedClient;
  readonly w1: PinnedClient;
  /** What the server has written to stderr so far. */
  stderr(): string;
  /** Closes the clients, stops the server (SIGKILL after 15 s) and removes the data directory. */
  stop(): Promise<void>;
}

/** Starts two workers (the before hook of the cross-process tests); `env` adds to the server's. */
export async function startTwoWorkers(prefix: string, env: NodeJS.ProcessEnv = {}): Promise<TwoWorkers> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let server: ChildProcess | undefined;
  let clients: Map<string, PinnedClient> | undefined;
  let stderr = "";
  const stop = async () => {
    for (const client of clients?.values() ?? []) client.close();
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill("SIGTERM");
      if ((await exitedWithin(server, 15_000)) === null) server.kill("SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const owner = initDataDir(dir);
    const port = await freePort();
    server = spawnWorkers(dir, port, 2, env);
    server.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await waitForServer(`http://127.0.0.1:${port}`, server);
    clients = await clientsOnWorkers(port, basicAuth(owner.email, owner.api_key).authorization, ["0", "1"]);
    return {
      dir,
      port,
      server,
      owner,
      w0: clients.get("0")!,
      w1: clients.get("1")!,
      stderr: () => stderr,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
