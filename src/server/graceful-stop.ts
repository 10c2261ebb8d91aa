import type { App } from "../app.js";
import { removeAbandonedUploads } from "../http/upload.js";
import { closeApp } from "./create-app.js";
import type { RunningServer } from "./listen.js";

/** Of shutdown_timeout_secs, the part kept for saving the queues and closing the database (at most). */
const SAVE_RESERVE_MS = 2000;

/**
 * A stopping server (SIGTERM, SIGINT), all within shutdown_timeout_secs: in-flight requests
 * get it less a reserve (a quarter, 2 s at most); then their connections are cut, and the
 * reserve goes to letting them see it, to background work, and to saving presence and the
 * event queues and closing the database. Work still running (a request waiting for an
 * image, a thumbnail) is abandoned: its client is gone, and it can no longer commit.
 */
export async function stopGracefully(app: App, running: RunningServer, saveQueues: boolean): Promise<void> {
  const budgetMs = app.config.shutdown_timeout_secs * 1000;
  const started = Date.now();
  const reserveMs = Math.min(budgetMs / 4, SAVE_RESERVE_MS);
  await running.close(budgetMs - reserveMs, reserveMs / 4);
  await closeApp(app, { saveQueues, waitUntil: started + budgetMs - reserveMs / 2 });
  await removeAbandonedUploads();
}
