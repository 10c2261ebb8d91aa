import cluster, { type Worker } from "node:cluster";
import type { App } from "../app.js";
import type { Config } from "../config.js";
import { realmUrl } from "../config.js";
import type { Logger } from "../logger.js";
import { dropAllCaches } from "../cache/invalidations.js";
import { closeApp, createApp, startEvents } from "../server/create-app.js";
import { stopGracefully } from "../server/graceful-stop.js";
import { listen, type RunningServer } from "../server/listen.js";
import { CliError, CliFailure } from "./output.js";
import { armShutdownWatchdog } from "./shutdown-watchdog.js";

/**
 * `serve --workers N`: N processes on one port (node:cluster; the primary accepts and
 * hands connections out). The primary holds the data directory's lock and has run
 * migrations and `prepare`; the workers serve. Events and caches cross processes through
 * the database's event log (events/replication.ts), so any request, long-polls included,
 * may land on any worker. The primary restarts a worker that dies.
 */

type WorkerMessage = { type: "listening"; port: number } | { type: "failed"; message: string };
type PrimaryMessage = { type: "drop-caches" };

const INDEX_ENV = "CHATD_WORKER_INDEX";
/** Runs several workers over SQLite anyway (measured no gain on 2 cores; the tests use it). */
export const SQLITE_WORKERS_ENV = "CHATD_SQLITE_WORKERS";

/**
 * Several workers over SQLite are refused unless asked for: SQLite has one writer, and on
 * the 2-core machine we measured, two workers served fewer sends and reads than one
 * (docs/operations.md, "Several workers"). The PostgreSQL backend (database_url) is where several processes pay.
 */
export function refuseSqliteWorkers(workers: number): void {
  if (workers > 1 && process.env[SQLITE_WORKERS_ENV] !== "1") {
    throw new CliError(
      `--workers ${workers} is refused on SQLite: with its single writer, more processes served fewer requests than one ` +
        `(see docs/operations.md, "Several workers"); run one process, or set ${SQLITE_WORKERS_ENV}=1 to run them anyway`,
    );
  }
}

export const isClusterWorker = () => cluster.isWorker;

/** The primary: forks the workers, restarts those that die, stops them all on a signal. */
export async function runPrimary(config: Config, workers: number, logger: Logger): Promise<void> {
  const byIndex = new Map<number, Worker>();
  let stopping = false;
  let started = 0;
  let failure: CliFailure | null = null;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const everyoneGone = () => {
    if (stopping && [...byIndex.values()].every((worker) => worker.isDead())) finish();
  };
  const stopAll = () => {
    stopping = true;
    for (const worker of byIndex.values()) if (!worker.isDead()) worker.process.kill("SIGTERM");
    everyoneGone();
  };
  const fork = (index: number) => {
    const worker = cluster.fork({ [INDEX_ENV]: String(index) });
    let listening = false;
    byIndex.set(index, worker);
    worker.on("message", (message: WorkerMessage) => {
      if (message.type === "failed") {
        failure ??= new CliFailure(message.message);
      } else if (message.type === "listening") {
        listening = true;
        if (++started === workers) {
          logger.info(
            `chatd listening on http://${config.host}:${message.port} with ${workers} workers (realm ${realmUrl(config)})`,
          );
        }
      }
    });
    worker.on("exit", (code, signal) => {
      if (stopping) return everyoneGone();
      if (!listening) {
        // A worker that cannot start (port taken, database unreadable) stops them all.
        failure ??= new CliFailure(`worker ${index} exited while starting (${signal ?? `code ${code}`})`);
        return stopAll();
      }
      logger.warn(
        `worker ${index} (pid ${worker.process.pid}) exited (${signal ?? `code ${code}`}); restarting it`,
      );
      // What it committed and had not passed on to the others' caches is unknown.
      const drop: PrimaryMessage = { type: "drop-caches" };
      for (const other of byIndex.values()) if (other !== worker && !other.isDead()) other.send(drop);
      fork(index);
    });
  };
  const onSignal = (signal: string) => {
    logger.info(`${signal} received; stopping the workers`);
    stopAll();
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  for (let index = 0; index < workers; index++) fork(index);
  await done;
  process.off("SIGINT", onInt);
  process.off("SIGTERM", onTerm);
  // Set by the workers' handlers, which TypeScript's narrowing does not see.
  const failed = failure as CliFailure | null;
  if (failed) throw failed;
  logger.info("chatd stopped");
}

/**
 * A worker: opens the database (the primary migrated it), serves until SIGTERM, then
 * shuts down gracefully (its queues stay in the store, for the other workers).
 */
export async function runWorker(
  config: Config,
  logger: Logger,
  describeListenFailure: (err: unknown) => unknown,
): Promise<void> {
  const index = Number(process.env[INDEX_ENV] ?? 0);
  const report = (message: WorkerMessage) => process.send?.(message);
  let app: App;
  let running: RunningServer;
  try {
    app = await createApp(config, {
      logger,
      migrate: false,
      worker: { index },
      busyRetry: {
        retries: 2,
        onRetry: (attempt) =>
          logger.warn(`database busy (another process is writing); waiting again (${attempt}/2)`),
      },
    });
  } catch (err) {
    report({ type: "failed", message: `worker ${index} could not open the database` });
    if (process.connected) process.disconnect();
    throw err;
  }
  try {
    await startEvents(app);
    running = await listen(app, config.host, config.port, { worker: index });
  } catch (err) {
    await closeApp(app).catch(() => undefined);
    const failure = describeListenFailure(err);
    const message = failure instanceof Error ? failure.message : String(failure);
    report({ type: "failed", message });
    if (process.connected) process.disconnect();
    throw failure instanceof Error ? failure : new CliFailure(message);
  }
  process.on("message", (message: PrimaryMessage) => {
    if (message.type === "drop-caches") dropAllCaches(app);
  });
  report({ type: "listening", port: running.port });
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", () => resolve());
    process.once("SIGINT", () => resolve());
    process.once("disconnect", () => resolve()); // the primary is gone
  });
  const watchdog = armShutdownWatchdog(logger, config.shutdown_timeout_secs * 1000);
  await stopGracefully(app, running, false);
  // The channel to the primary would keep this process alive.
  if (process.connected) process.disconnect();
  watchdog.stopped();
}
