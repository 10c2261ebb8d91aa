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
  /** Answered (by whichever worker was first); a later answer is dropped. */
  settled: boolean;
  /** Fires when the job has waited too long: it is then also given to the rescuer. */
  starving: NodeJS.Timeout | null;
}

/**
 * `pool`: one of the pool's `size` workers (SCHED_IDLE, nice 19). `rescuer`: the one
 * process, at nice 10 and the normal policy, that runs the jobs pool workers starved on.
 */
type WorkerKind = "pool" | "rescuer";

interface Worker {
  readonly kind: WorkerKind;
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
function spawnWorker(kind: WorkerKind): ChildProcess {
  // Not a cluster worker even when this process is one: that is decided by NODE_UNIQUE_ID.
  const env: NodeJS.ProcessEnv = { ...process.env, CHATD_HASH_WORKER_NICE: kind === "rescuer" ? "10" : "19" };
  delete env.NODE_UNIQUE_ID;
  if (kind === "rescuer") return fork(WORKER_SCRIPT, [], { env, execArgv: [], serialization: "json" });
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
 *
 * SCHED_IDLE never runs while the machine's cores are all busy, however long: a job not
 * answered within `starvedAfterMs` is also given to one rescuer process of normal policy
 * at nice 10, and the first answer wins (the starved worker is ended). For the next
 * `5 * starvedAfterMs` new jobs go to the rescuer straight away (the machine is likely
 * still saturated); then the pool is tried again. So a login waits a little longer on a
 * saturated machine, never forever, and a flood hashes on the idle-priority workers
 * whenever the server leaves a core free.
 */
export class PasswordHashPool {
  private readonly workers = new Set<Worker>();
  private readonly queue: Pending[] = [];
  private readonly rescueQueue: Pending[] = [];
  private rescuer: Worker | null = null;
  /** When the rescuer last answered a job a pool worker starved on. */
  private lastRescue = -Infinity;
  private nextId = 1;

  constructor(
    readonly size: number,
    public starvedAfterMs = 2_000,
  ) {}

  /** The scrypt key of `job`, computed in a worker process. */
  hash(job: HashJob): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const pending: Pending = { job, resolve, reject, deaths: 0, settled: false, starving: null };
      if (performance.now() - this.lastRescue < 5 * this.starvedAfterMs) {
        this.rescue(pending);
        return;
      }
      pending.starving = setTimeout(() => this.rescue(pending), this.starvedAfterMs);
      // The job's worker keeps the process alive while it is in flight; the timer need not.
      pending.starving.unref();
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /** The process IDs of the pool's (idle-priority) workers alive now. */
  get pids(): number[] {
    return [...this.workers].map((w) => w.child.pid).filter((pid): pid is number => pid !== undefined);
  }

  /** The rescuer's process ID, while it runs (it starts on the first starved job). */
  get rescuerPid(): number | undefined {
    return this.rescuer?.child.pid;
  }

  /** Idle-priority workers running a job now. */
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
    const ending = [...this.workers, ...(this.rescuer ? [this.rescuer] : [])];
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
      this.send(worker, this.queue.shift()!);
    }
  }

  private rescue(pending: Pending): void {
    if (pending.settled) return;
    this.rescueQueue.push(pending);
    this.dispatchRescue();
  }

  private dispatchRescue(): void {
    while (this.rescueQueue[0]?.settled) this.rescueQueue.shift();
    // A retiring rescuer (stop() was called) is replaced once it has exited.
    if (this.rescueQueue.length === 0 || this.rescuer?.job || this.rescuer?.retiring) return;
    this.rescuer ??= this.start("rescuer");
    this.send(this.rescuer, this.rescueQueue.shift()!);
  }

  private send(worker: Worker, pending: Pending): void {
    const id = this.nextId++;
    worker.job = { id, pending };
    // A job in flight keeps the process alive until it is answered; an idle worker does not.
    worker.child.ref();
    worker.child.channel?.ref();
    worker.child.send({ id, ...pending.job } satisfies HashRequest);
  }

  private idleWorker(): Worker | null {
    let live = 0;
    for (const worker of this.workers) {
      if (worker.retiring) continue;
      if (!worker.job) return worker;
      live++;
    }
    return live < this.size ? this.start("pool") : null;
  }

  private start(kind: WorkerKind): Worker {
    const child = spawnWorker(kind);
    let markExited!: () => void;
    const worker: Worker = {
      kind,
      child,
      exited: new Promise<void>((resolve) => (markExited = resolve)),
      job: null,
      retiring: false,
    };
    if (kind === "pool") this.workers.add(worker);
    this.idle(worker);
    child.on("message", (reply: HashReply) => this.answered(worker, reply));
    let exited = false;
    const gone = () => {
      if (exited) return;
      exited = true;
      this.workers.delete(worker);
      if (this.rescuer === worker) this.rescuer = null;
      markExited();
      const job = worker.job?.pending;
      worker.job = null;
      if (job && !job.settled) {
        if (++job.deaths > 1) this.settle(job, new Error("password hashing failed: its worker process died"));
        else if (kind === "rescuer") this.rescueQueue.unshift(job);
        else this.queue.unshift(job);
      }
      this.dispatch();
      this.dispatchRescue();
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
    const { pending } = current;
    const first = !pending.settled;
    this.settle(pending, "key" in reply ? Buffer.from(reply.key, "base64") : new Error(reply.error));
    if (worker.retiring) this.end(worker);
    else this.idle(worker);
    if (first && worker.kind === "rescuer" && this.endStarved(pending)) this.lastRescue = performance.now();
    this.dispatch();
    this.dispatchRescue();
  }

  private settle(pending: Pending, outcome: Buffer | Error): void {
    if (pending.settled) return;
    pending.settled = true;
    if (pending.starving) clearTimeout(pending.starving);
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  }

  /**
   * The rescuer answered `pending` first: the pool worker still holding it is starved, and
   * would hold its place in the pool until the machine is idle. It is ended (SIGKILL: a
   * starved process may not run to handle SIGTERM); a later job starts a fresh one. True
   * when a pool worker or the pool's queue still held the job (jobs sent to the rescuer
   * straight away starved nowhere).
   */
  private endStarved(pending: Pending): boolean {
    const queued = this.queue.indexOf(pending);
    if (queued >= 0) this.queue.splice(queued, 1);
    let starved = queued >= 0;
    for (const worker of this.workers) {
      if (worker.job?.pending !== pending) continue;
      starved = true;
      worker.job = null;
      worker.retiring = true;
      this.workers.delete(worker);
      worker.child.kill("SIGKILL");
    }
    return starved;
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
