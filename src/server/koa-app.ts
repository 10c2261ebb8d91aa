import Koa from "koa";
import Router from "@koa/router";
import type { App } from "../app.js";
import { emojiData } from "./emoji-data.js";
import { JsonableError } from "../errors.js";
import { ENDPOINTS } from "../api/index.js";
import { bodyParser } from "../http/body.js";
import { routeNotFound, type Endpoint } from "../http/endpoint.js";
import { homePage } from "./home-page.js";
import { staticFiles } from "./static-files.js";

/** Literal segments before parameters, so /users/me wins over /users/:user_id. */
function routeOrder(a: Endpoint, b: Endpoint): number {
  const segments = (e: Endpoint) => e.path.split("/");
  const [sa, sb] = [segments(a), segments(b)];
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const [x, y] = [sa[i]!, sb[i]!];
    const [px, py] = [/^[:*]/.test(x), /^[:*]/.test(y)];
    if (px !== py) return px ? 1 : -1;
  }
  return 0;
}

/** The first path segment after /api/v1 ("users" for /api/v1/users/me). */
function firstSegment(path: string): string {
  const rest = path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : path;
  return rest.split("/")[1] ?? "";
}

const API_PREFIX = "/api/v1";

export function createHttpApp(app: App): Koa {
  const koa = new Koa({ proxy: false });
  // One router per first path segment: a request is matched only against the routes
  // that can serve it, not against every route of the API.
  const routers = new Map<string, Router>();
  for (const endpoint of [...ENDPOINTS].sort(routeOrder)) {
    const segment = firstSegment(endpoint.path);
    let router = routers.get(segment);
    if (!router) routers.set(segment, (router = new Router({ prefix: API_PREFIX })));
    router.register(endpoint.path, [endpoint.method], (ctx) => endpoint.run(app, ctx));
  }
  const dispatch = new Map(
    [...routers].map(([segment, router]) => [
      segment,
      { router, routes: router.routes() as unknown as Koa.Middleware },
    ]),
  );

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
  const parseBody = bodyParser(app.config.body_limit_bytes);
  // GET and HEAD carry no body: skip the parser's content-type checks entirely.
  koa.use(async (ctx, next) => {
    if (ctx.method === "GET" || ctx.method === "HEAD") await next();
    else await parseBody(ctx, next);
  });
  koa.use(async (ctx, next) => {
    const target = ctx.path.startsWith(API_PREFIX) ? dispatch.get(firstSegment(ctx.path)) : undefined;
    if (!target) {
      await next();
      return;
    }
    await target.routes(ctx, next);
    if (ctx.body !== undefined) return;
    const allowed = [
      ...new Set(
        target.router.stack
          .filter((layer) => layer.match(ctx.path))
          .flatMap((layer) => layer.methods.filter((m) => m !== "HEAD")),
      ),
    ];
    if (allowed.length > 0) {
      ctx.status = 405;
      ctx.set("Allow", allowed.join(", "));
      ctx.body = {
        result: "error",
        msg: "Method Not Allowed",
        code: "BAD_REQUEST",
        allowed_methods: allowed,
      };
    }
  });
  // Outside /api/v1: the page at / and the files under /static.
  koa.use(homePage(app));
  koa.use(staticFiles());
  return koa;
}
