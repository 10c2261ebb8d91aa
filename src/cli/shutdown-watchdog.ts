import type { Logger } from "../logger.js";

/** Beyond shutdown_timeout_secs, how long a stop that hangs gets before the process exits anyway. */
const EXIT_MARGIN_MS = 3000;
/** After a completed stop, how long abandoned work may hold the process before it exits. */
const ABANDONED_WORK_MS = 50;

/**
 * Armed when a stop begins: the process exits within shutdown_timeout_secs (plus a small
 * margin) of the signal, whatever is in flight. A completed stop (`stopped`) may leave work
 * nobody waits for any more, which would keep the process alive (an image operation on
 * libuv's pool cannot be cancelled): it exits anyway, with the stop's exit code. A stop that
 * does not complete in time exits with code 1: the event queues may not have been saved.
 */
export function armShutdownWatchdog(logger: Logger, budgetMs: number): { stopped(): void } {
  const limitMs = budgetMs + EXIT_MARGIN_MS;
  const watchdog = setTimeout(() => {
    logger.error(`shutdown: not done ${limitMs} ms after the signal; exiting (event queues may be lost)`);
    process.exit(1);
  }, limitMs);
  watchdog.unref();
  return {
    stopped() {
      clearTimeout(watchdog);
      // Unreferenced: it fires only if something abandoned still holds the event loop.
      setTimeout(() => {
        logger.warn("shutdown: exiting with abandoned work still running");
        process.exit();
      }, ABANDONED_WORK_MS).unref();
    },
  };
}
