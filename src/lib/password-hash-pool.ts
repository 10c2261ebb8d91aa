import { fork, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** One scrypt job, as sent to a worker process (password-hash-worker.ts). */
export interface HashRequest {
  readonly id: number;
  readonly password: string;
  /** base64 */
  readonly salt: string;
  readonly keyLength: number;
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

export type HashReply =
  { readonly id: number; readonly key: string } | { readonly id: number; readonly error: string };

export type HashJob = Omit<HashRequest, "id">;

interface Pending {
  readonly job: HashJob;
  readonly resolve: (key: Buffer) => void;
  readonly reject: (err: Error) => void;
  /** Times a worker died while running it: run once more on a fresh one, then give up. */
  deaths: number;
}

interface Worker {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  job: { id: number; pending: Pending } | null;
  /** Ends once its job (if any) is done: the pool was stopped while it was busy. */
  retiring: boolean;
}

const WORKER_SCRIPT = fileURLToPath(new URL("./password-hash-worker.js", import.meta.url));

/** Whether `chrt --idle` works here; looked up once, when the first worker starts. */
let idleSchedulingWorks: boolean | undefined;

/**
 * A worker process, under Linux's SCHED_IDLE policy where util-linux's `chrt` can set it
 * (any other task preempts it the moment it wakes; nice 19 alone, which the worker sets
 * too, lets a hash finish its time slice first: a few ms added to requests on its core).
 */
function spawnWorker(): ChildProcess {
  // Not a cluster worker even when this process is one: that is decided by NODE_UNIQUE_ID.
  const env = { ...process.env };
  delete env.NODE_UNIQUE_ID;
  idleSchedulingWorks ??=
    process.platform === "linux" &&
    spawnSync("chrt", ["--idle", "0", process.execPath, "--version"], { stdio: "ignore", timeout: 10_000 })
      .status === 0;
  if (!idleSchedulingWorks) return fork(WORKER_SCRIPT, [], { env, execArgv: [], serialization: "json" });
  return spawn("chrt", ["--idle", "0", process.execPath, WORKER_SCRIPT], {
    env,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    serialization: "json",
  });
}

/**
 * Password hashing in up to `size` child processes of the lowest CPU priority, so that
 * hashing takes only the CPU the server leaves idle (the OS schedules the server first),
 * never its event loop's or its thread pool's. Workers start on first use, one per job running at
 * once; one that dies is replaced (its job runs again on the replacement); `stop()` ends
 * them all. An idle pool does not keep the process alive, and a worker exits by itself
 * when its parent goes, so none outlives the server.
 */
export class PasswordHashPool {
  private readonly workers = new Set<Worker>();
  private readonly queue: Pending[] = [];
  private nextId = 1;

  constructor(readonly size: number) {}

  /** The scrypt key of `job`, computed in a worker process. */
  hash(job: HashJob): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject, deaths: 0 });
      this.dispatch();
    });
  }

  /** The process IDs of the workers alive now. */
  get pids(): number[] {
    return [...this.workers].map((w) => w.child.pid).filter((pid): pid is number => pid !== undefined);
  }

  /** Workers running a job now. */
  get busy(): number {
    let n = 0;
    for (const worker of this.workers) if (worker.job) n++;
    return n;
  }

  /**
   * Ends every worker: idle ones now, busy ones once their job is done (a server stops
   * after its requests, so this only waits for another App's in the same process). A job
   * submitted afterwards starts new workers.
   */
  async stop(): Promise<void> {
    const ending = [...this.workers];
    for (const worker of ending) {
      worker.retiring = true;
      if (!worker.job) this.end(worker);
    }
    await Promise.all(ending.map((worker) => worker.exited));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idleWorker();
      if (!worker) return;
      const pending = this.queue.shift()!;
      const id = this.nextId++;
      worker.job = { id, pending };
      // A job in flight keeps the process alive until it is answered; an idle worker does not.
      worker.child.ref();
      worker.child.channel?.ref();
      worker.child.send({ id, ...pending.job } satisfies HashRequest);
    }
  }

  private idleWorker(): Worker | null {
    let live = 0;
    for (const worker of this.workers) {
      if (worker.retiring) continue;
      if (!worker.job) return worker;
      live++;
    }
    return live < this.size ? this.start() : null;
  }

  private start(): Worker {
    const child = spawnWorker();
    let markExited!: () => void;
    const worker: Worker = {
      child,
      exited: new Promise<void>((resolve) => (markExited = resolve)),
      job: null,
      retiring: false,
    };
    this.workers.add(worker);
    this.idle(worker);
    child.on("message", (reply: HashReply) => this.answered(worker, reply));
    const gone = () => {
      if (!this.workers.delete(worker)) return;
      markExited();
      const job = worker.job?.pending;
      worker.job = null;
      if (job) {
        if (++job.deaths > 1) job.reject(new Error("password hashing failed: its worker process died"));
        else this.queue.unshift(job);
      }
      this.dispatch();
    };
    // "error" covers a fork that failed (no "exit" follows) and a kill that failed.
    child.on("exit", gone);
    child.on("error", () => {
      gone();
      child.kill("SIGKILL");
    });
    return worker;
  }

  private answered(worker: Worker, reply: HashReply): void {
    const current = worker.job;
    if (!current || current.id !== reply.id) return;
    worker.job = null;
    if ("key" in reply) current.pending.resolve(Buffer.from(reply.key, "base64"));
    else current.pending.reject(new Error(reply.error));
    if (worker.retiring) this.end(worker);
    else this.idle(worker);
    this.dispatch();
  }

  private idle(worker: Worker): void {
    worker.child.unref();
    worker.child.channel?.unref();
  }

  private end(worker: Worker): void {
    // Whoever awaits stop() is answered once the worker has exited, even in a process with
    // nothing else to wait for.
    worker.child.ref();
    // Closing the channel makes the worker exit; the signal covers one that does not.
    if (worker.child.connected) worker.child.disconnect();
    worker.child.kill("SIGTERM");
  }
}
