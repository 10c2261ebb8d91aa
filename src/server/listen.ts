import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { App } from "../app.js";
import { answerClientErrors } from "./client-errors.js";
import { createRequestHandler } from "./request-handler.js";

export interface RunningServer {
  readonly server: Server;
  readonly port: number;
  /**
   * Graceful stop: stops accepting, answers parked long-polls, sends `Connection: close`
   * with every further response (so keep-alive clients cannot re-poll on the same socket),
   * and waits for in-flight requests; after `timeoutMs` it cuts the connections left, and
   * gives the requests still running up to `unwindMs` (default: a second at most) to see
   * it (an upload removes its temporary files). Work running beyond is abandoned: its
   * client is gone, and closeApp refuses its writes.
   */
  close(timeoutMs?: number, unwindMs?: number): Promise<void>;
}

/**
 * `worker`: one of several processes on this port (`serve --workers N`); each response
 * names it in `X-Chatd-Worker`, which tells operators (and tests) who answered.
 */
export async function listen(
  app: App,
  host: string,
  port: number,
  options: { worker?: number } = {},
): Promise<RunningServer> {
  const workerHeader = options.worker === undefined ? null : String(options.worker);
  const handler = createRequestHandler(app);
  const unanswered = new Set<ServerResponse>();
  const running = new Set<Promise<void>>();
  let closing = false;
  const server = createServer((req, res) => {
    if (closing) res.setHeader("Connection", "close");
    if (workerHeader !== null) res.setHeader("X-Chatd-Worker", workerHeader);
    unanswered.add(res);
    res.once("close", () => unanswered.delete(res));
    const handling: Promise<void> = Promise.resolve(handler(req, res))
      .catch(() => undefined)
      .then(() => void running.delete(handling));
    running.add(handling);
  });
  // A slow client gets this long to send its request; long-poll waits are response time.
  server.requestTimeout = app.config.request_timeout_secs * 1000;
  server.headersTimeout = Math.min(server.requestTimeout, 20_000);
  server.keepAliveTimeout = 5_000;
  answerClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: (timeoutMs = app.config.shutdown_timeout_secs * 1000, unwindMs = Math.min(timeoutMs, UNWIND_MS)) =>
      new Promise<void>((resolve, reject) => {
        closing = true;
        // Node decides keep-alive when the headers go out: these responses will close their socket.
        for (const res of unanswered) if (!res.headersSent) res.setHeader("Connection", "close");
        const deadline = setTimeout(() => {
          app.logger.warn(`shutdown: closing ${unanswered.size} unfinished request(s) after ${timeoutMs} ms`);
          server.closeAllConnections();
        }, timeoutMs);
        server.close((err) => {
          clearTimeout(deadline);
          if (err) reject(err);
          else void finishRunning(app, running, unwindMs).then(resolve);
        });
        app.events.stop();
        server.closeIdleConnections();
      }),
  };
}

/** How long requests still running when their connections are cut get to see it, by default. */
const UNWIND_MS = 1000;

/**
 * Requests whose connections were cut at the deadline: most end at once (a body being read
 * fails, an upload removes its files). One waiting for slow work (an image, a hash) would
 * hold the stop as long as that work: after `unwindMs` it is left running.
 */
async function finishRunning(app: App, running: Set<Promise<void>>, unwindMs: number): Promise<void> {
  if (running.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([
    Promise.all(running).then(() => false),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(true), unwindMs))),
  ]);
  clearTimeout(timer);
  if (late) app.logger.warn(`shutdown: ${running.size} request(s) still running are abandoned`);
}
