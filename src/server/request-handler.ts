import type { IncomingMessage, ServerResponse } from "node:http";
import type { App } from "../app.js";
import { ENDPOINTS } from "../api/index.js";
import { plainApi } from "../http/plain-api.js";
import { Router } from "../http/router.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Every request's handler: API requests without a body are answered over plain Node
 * (http/plain-api.ts), all others by Koa (koa-app.ts), both from one route table. Koa and
 * what only it serves (bodies, uploads, files, the home page) load with the first request
 * that needs them: a server only polled and read holds none of it.
 */
export function createRequestHandler(app: App): Handler {
  const router = new Router(ENDPOINTS);
  const plain = plainApi(app, router);
  let koa: Handler | undefined;
  let loading: Promise<Handler> | undefined;
  const loadKoa = () =>
    (loading ??= import("./koa-app.js").then(
      (module) => (koa = module.createKoaApp(app, router)),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    ));
  return (req, res) =>
    plain(req, res) ?? (koa ? koa(req, res) : loadKoa().then((handler) => handler(req, res)));
}
