import type { IncomingMessage, ServerResponse } from "node:http";
import Koa, { type Context, type Next } from "koa";
import type { App } from "../app.js";
import { emojiData } from "./emoji-data.js";
import { ENDPOINTS } from "../api/index.js";
import { bodyParser } from "../http/body.js";
import { routeNotFound } from "../http/endpoint.js";
import { failure, logRequest } from "../http/outcome.js";
import { apiPath } from "../http/prefixes.js";
import { Router, type Resolution } from "../http/router.js";
import { clientsPage } from "./clients-page.js";
import { signupPages } from "./signup-pages.js";
import { webApp } from "./web-app.js";
import { webAssets } from "./web-assets.js";
import { staticFiles } from "./static-files.js";
import { userUploads } from "./user-uploads.js";

/** GET and HEAD carry no body: the parser's content-type checks are skipped entirely. */
const hasBody = (method: string) => method !== "GET" && method !== "HEAD";

/** Koa's handler for the requests the plain path leaves to it (request-handler.ts). */
export function createKoaApp(
  app: App,
  router: Router,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return createHttpApp(app, router).callback();
}

/** Koa alone for every request: the tests check the plain path answers as it does. */
export function createKoaHandler(app: App): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return createHttpApp(app, new Router(ENDPOINTS)).callback();
}

/**
 * Two middlewares stand before an API endpoint (errors and logging, then the API): the
 * route is resolved once, from a table for paths without parameters (http/router.ts),
 * and the rest of the chain serves what lies outside /api/v1.
 */
function createHttpApp(app: App, router: Router): Koa {
  const koa = new Koa({ proxy: false });
  const logRequests = app.logger.enabled("info");

  koa.use(async (ctx, next) => {
    const started = logRequests ? performance.now() : 0;
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) throw routeNotFound();
    } catch (err) {
      const failed = failure(app, ctx.method, ctx.path, err);
      ctx.status = failed.status;
      ctx.set(failed.headers);
      ctx.body = failed.body;
    } finally {
      if (logRequests) logRequest(app, ctx.method, ctx.path, ctx.status, started, ctx.state.userId);
    }
  });
  const parseBody = bodyParser(app.config.body_limit_bytes, app.config.max_concurrent_body_parses);
  const noop = () => Promise.resolve();

  koa.use(async (ctx, next) => {
    const path = apiPath(ctx.path);
    if (path === null) {
      await next();
      return;
    }
    const found = router.resolve(ctx.method, path);
    // Uploads stream their own multipart bodies to disk (http/upload.ts).
    const streams = found.kind === "endpoint" && found.endpoint.streamsBody;
    if (hasBody(ctx.method) && !streams) await parseBody(ctx, noop);
    if (found.kind === "endpoint") await found.endpoint.run(app, ctx, found.params);
    else if (found.kind === "method_not_allowed") methodNotAllowed(ctx, found);
    else await next();
  });
  // Outside /api/v1 and without a body: the emoji table clients fetch (server_emoji_data_url).
  koa.use(emojiData());
  koa.use(async (ctx: Context, next: Next) => {
    // API paths had theirs parsed above.
    if (hasBody(ctx.method) && apiPath(ctx.path) === null) await parseBody(ctx, next);
    else await next();
  });
  // Outside the API: uploaded files and avatars, the web client's pages and built files, the
  // page on other clients and the files under /static.
  koa.use(userUploads(app));
  koa.use(signupPages(app));
  koa.use(webApp(app));
  koa.use(webAssets());
  koa.use(clientsPage(app));
  koa.use(staticFiles());
  return koa;
}

function methodNotAllowed(ctx: Context, found: Extract<Resolution, { kind: "method_not_allowed" }>): void {
  ctx.status = 405;
  ctx.set("Allow", found.allowed.join(", "));
  ctx.body = {
    result: "error",
    msg: "Method Not Allowed",
    code: "BAD_REQUEST",
    allowed_methods: found.allowed,
  };
}
