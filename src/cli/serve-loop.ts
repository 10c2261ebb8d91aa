import type { App } from "../app.js";
import { closeApp, startEvents } from "../server/create-app.js";
import { realmUrl } from "../config.js";
import { listen } from "../server/listen.js";

/**
 * Serves until SIGINT/SIGTERM, then shuts down gracefully: stop accepting, release
 * parked long-polls, finish in-flight requests, save event queues, close the database.
 */
export async function serveUntilSignal(app: App): Promise<void> {
  await startEvents(app);
  const running = await listen(app, app.config.host, app.config.port);
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
  await running.close();
  await closeApp(app, { saveQueues: true });
  app.logger.info("chatd stopped");
}
