import Koa from "koa";
import type { App } from "../app.js";
import { emojiData } from "./emoji-data.js";
import { JsonableError } from "../errors.js";
import { ENDPOINTS } from "../api/index.js";
import { bodyParser } from "../http/body.js";
import { routeNotFound } from "../http/endpoint.js";
import { Router } from "../http/router.js";
import { homePage } from "./home-page.js";
import { staticFiles } from "./static-files.js";
import { userUploads } from "./user-uploads.js";

const API_PREFIX = "/api/v1";

export function createHttpApp(app: App): Koa {
  const koa = new Koa({ proxy: false });
  const router = new Router(ENDPOINTS);

  koa.use(async (ctx, next) => {
    const started = performance.now();
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
      const ms = (performance.now() - started).toFixed(1);
      const who = typeof ctx.state.userId === "number" ? ` user=${ctx.state.userId}` : "";
      // Path only: query strings and bodies may carry credentials.
      app.logger.info(`${ctx.method} ${ctx.path} ${ctx.status} ${ms}ms${who}`);
    }
  });
  // Outside /api/v1 and without a body: the emoji table clients fetch (server_emoji_data_url).
  koa.use(emojiData());
  const parseBody = bodyParser(app.config.body_limit_bytes, app.config.max_concurrent_body_parses);
  // GET and HEAD carry no body: skip the parser's content-type checks entirely. Uploads
  // stream their own multipart bodies to disk (http/upload.ts).
  koa.use(async (ctx, next) => {
    if (ctx.method === "GET" || ctx.method === "HEAD" || streamsOwnBody(router, ctx.method, ctx.path)) {
      await next();
    } else await parseBody(ctx, next);
  });
  koa.use(async (ctx, next) => {
    if (!ctx.path.startsWith(API_PREFIX)) {
      await next();
      return;
    }
    const found = router.resolve(ctx.method, ctx.path.slice(API_PREFIX.length));
    if (found.kind === "endpoint") {
      await found.endpoint.run(app, ctx, found.params);
    } else if (found.kind === "method_not_allowed") {
      ctx.status = 405;
      ctx.set("Allow", found.allowed.join(", "));
      ctx.body = {
        result: "error",
        msg: "Method Not Allowed",
        code: "BAD_REQUEST",
        allowed_methods: found.allowed,
      };
    } else {
      await next();
    }
  });
  // Outside /api/v1: uploaded files and avatars, the page at / and the files under /static.
  koa.use(userUploads(app));
  koa.use(homePage(app));
  koa.use(staticFiles());
  return koa;
}

function streamsOwnBody(router: Router, method: string, path: string): boolean {
  if (!path.startsWith(API_PREFIX)) return false;
  const found = router.resolve(method, path.slice(API_PREFIX.length));
  return found.kind === "endpoint" && found.endpoint.streamsBody;
}
