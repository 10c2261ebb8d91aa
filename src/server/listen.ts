import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { App } from "../app.js";
import { createHttpApp } from "./koa-app.js";

export interface RunningServer {
  readonly server: Server;
  readonly port: number;
  /** Stops accepting, ends parked long-polls, waits for in-flight requests. */
  close(): Promise<void>;
}

export async function listen(app: App, host: string, port: number): Promise<RunningServer> {
  const koa = createHttpApp(app);
  const handler = koa.callback();
  const server = createServer((req, res) => void handler(req, res));
  // A slow client gets this long to send its request; long-poll waits are response time.
  server.requestTimeout = app.config.request_timeout_secs * 1000;
  server.headersTimeout = Math.min(server.requestTimeout, 20_000);
  server.keepAliveTimeout = 5_000;
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
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        app.events.stop();
        server.closeIdleConnections();
      }),
  };
}
