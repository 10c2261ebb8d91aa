import type { App } from "../app.js";
import type { Config } from "../config.js";
import { usesPostgres } from "../db/knex.js";
import { lockDataDir } from "../db/server-lock.js";
import { createLogger } from "../logger.js";
import { closeApp, createApp, startEvents } from "../server/create-app.js";
import { realmUrl } from "../config.js";
import { stopGracefully } from "../server/graceful-stop.js";
import { listen, type RunningServer } from "../server/listen.js";
import { prepareDataDir } from "./context.js";
import { failureWhile } from "./failures.js";
import { CliFailure } from "./output.js";
import { isClusterWorker, refuseSqliteWorkers, runPrimary, runWorker } from "./cluster.js";
import { armShutdownWatchdog } from "./shutdown-watchdog.js";
import { limitHeapGrowth } from "./heap-growth.js";
import { releaseAfterStartup, releaseWhenBusy } from "./young-generation.js";

/**
 * Runs the server: prepares the data directory, takes the server lock, opens the
 * database, runs `prepare` (a realm check, or the first-run initialization), then
 * serves until a signal. A failure at any step closes what the steps before opened,
 * so the process exits with one clear message instead of hanging.
 */
export async function runServer(
  config: Config,
  prepare: (app: App) => Promise<void>,
  workers = 1,
): Promise<void> {
  // A cluster worker: the primary below has locked, migrated and prepared.
  if (isClusterWorker()) {
    releaseAfterStartup();
    limitHeapGrowth();
    return runWorker(config, createLogger(config.log_level), (err) => listenFailure(config, err));
  }
  if (!usesPostgres(config)) refuseSqliteWorkers(workers);
  prepareDataDir(config);
  let lock;
  try {
    lock = await lockDataDir(config);
  } catch (err) {
    throw failureWhile(`locking the data directory ${config.data_dir}`, err);
  }
  if (!lock) {
    throw new CliFailure(`another chatd server is already running on the data directory ${config.data_dir}`);
  }
  try {
    let app: App;
    try {
      const logger = createLogger(config.log_level);
      app = await createApp(config, {
        logger,
        // Several machines may serve one PostgreSQL database: even one process then
        // publishes through the event log and tails it, as each of several workers does.
        worker: usesPostgres(config) && workers === 1 ? { index: 0 } : undefined,
        // Admin commands write beside the server: a request that cannot get the write lock
        // within the busy timeout (an admin command holds it) waits again before failing.
        busyRetry: {
          retries: 2,
          onRetry: (attempt) =>
            logger.warn(`database busy (an admin command is writing); waiting again (${attempt}/2)`),
        },
      });
    } catch (err) {
      throw failureWhile(`opening the database in ${config.data_dir}`, err);
    }
    try {
      await prepare(app);
    } catch (err) {
      await closeApp(app);
      throw err;
    }
    if (workers > 1) {
      releaseAfterStartup();
      await closeApp(app);
      await runPrimary(config, workers, app.logger);
      return;
    }
    await serveUntilSignal(app);
  } finally {
    await lock.release();
  }
}

/** What went wrong when the server could not listen, with what to do about it. */
function listenFailure(config: Config, err: unknown): unknown {
  const where = `${config.host}:${config.port}`;
  switch ((err as { code?: unknown }).code) {
    case "EADDRINUSE":
      return new CliFailure(
        `port ${config.port} on ${config.host} is already in use (another server?); stop it or choose another port with --port`,
        { cause: err },
      );
    case "EACCES":
      return new CliFailure(
        `permission denied to listen on ${where} (ports below 1024 need privileges); choose another port with --port`,
        { cause: err },
      );
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
      return new CliFailure(
        `cannot listen on ${config.host}: no such address on this machine; check --host`,
        {
          cause: err,
        },
      );
    default:
      return failureWhile(`listening on ${where}`, err);
  }
}

/**
 * Serves until SIGINT/SIGTERM, then shuts down gracefully within shutdown_timeout_secs
 * (server/graceful-stop.ts): stop accepting, release parked long-polls, close keep-alive
 * connections after their current response, finish in-flight requests, save event queues,
 * close the database. Clients continue with the same queues after a restart.
 */
async function serveUntilSignal(app: App): Promise<void> {
  let running: RunningServer;
  try {
    await startEvents(app);
    running = await listen(app, app.config.host, app.config.port);
  } catch (err) {
    // Saving puts back the queues startEvents restored (restoring removes them).
    await closeApp(app, { saveQueues: true }).catch(() => closeApp(app));
    throw listenFailure(app.config, err);
  }
  releaseWhenBusy();
  limitHeapGrowth();
  app.logger.info(
    `chatd listening on http://${app.config.host}:${running.port} (realm ${realmUrl(app.config)})`,
  );
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      app.logger.info(`${signal} received; shutting down`);
      resolve();
    };
    const onInt = () => stop("SIGINT");
    const onTerm = () => stop("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
  });
  const watchdog = armShutdownWatchdog(app.logger, app.config.shutdown_timeout_secs * 1000);
  await stopGracefully(app, running, true);
  app.logger.info("chatd stopped");
  watchdog.stopped();
}
