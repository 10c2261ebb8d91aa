import Koa, { type Context, type Next } from "koa";
import type { App } from "../app.js";
import { emojiData } from "./emoji-data.js";
import { JsonableError } from "../errors.js";
import { ENDPOINTS } from "../api/index.js";
import { bodyParser } from "../http/body.js";
import { routeNotFound } from "../http/endpoint.js";
import { Router, type Resolution } from "../http/router.js";
import { homePage } from "./home-page.js";
import { staticFiles } from "./static-files.js";
import { userUploads } from "./user-uploads.js";

const API_PREFIX = "/api/v1";

/** GET and HEAD carry no body: the parser's content-type checks are skipped entirely. */
const hasBody = (method: string) => method !== "GET" && method !== "HEAD";

/**
 * Two middlewares stand before an API endpoint (errors and logging, then the API): the
 * route is resolved once, from a table for paths without parameters (http/router.ts),
 * and the rest of the chain serves what lies outside /api/v1.
 */
export function createHttpApp(app: App): Koa {
  const koa = new Koa({ proxy: false });
  const router = new Router(ENDPOINTS);
  const logRequests = app.logger.enabled("info");

  koa.use(async (ctx, next) => {
    const started = logRequests ? performance.now() : 0;
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) throw routeNotFound();
    } catch (err) {
      if (err instanceof JsonableError) {
        ctx.status = err.status;
        ctx.set(err.headers);
        ctx.body = err.toBody();
      } else {
        app.logger.error(`${ctx.method} ${ctx.path} failed`, err);
        ctx.status = 500;
        ctx.body = { result: "error", msg: "Internal server error", code: "INTERNAL_SERVER_ERROR" };
      }
    } finally {
      // Built only when written: a request's line costs more than the rest of GET /users/me's logging.
      if (logRequests) {
        const ms = (performance.now() - started).toFixed(1);
        const who = typeof ctx.state.userId === "number" ? ` user=${ctx.state.userId}` : "";
        // Path only: query strings and bodies may carry credentials.
        app.logger.info(`${ctx.method} ${ctx.path} ${ctx.status} ${ms}ms${who}`);
      }
    }
  });
  const parseBody = bodyParser(app.config.body_limit_bytes, app.config.max_concurrent_body_parses);
  const noop = () => Promise.resolve();

  koa.use(async (ctx, next) => {
    const path = ctx.path;
    if (!path.startsWith(API_PREFIX)) {
      await next();
      return;
    }
    const found = router.resolve(ctx.method, path.slice(API_PREFIX.length));
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
    if (hasBody(ctx.method) && !ctx.path.startsWith(API_PREFIX)) await parseBody(ctx, next);
    else await next();
  });
  // Outside /api/v1: uploaded files and avatars, the page at / and the files under /static.
  koa.use(userUploads(app));
  koa.use(homePage(app));
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
