import Koa from "koa";
import Router from "@koa/router";
import type { App } from "../app-context.js";
import { JsonableError } from "../errors.js";
import { ENDPOINTS } from "../api/index.js";
import { bodyParser } from "./body.js";
import { routeNotFound, type Endpoint } from "./endpoint.js";

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

export function createHttpApp(app: App): Koa {
  const koa = new Koa({ proxy: false });
  const router = new Router({ prefix: "/api/v1" });
  for (const endpoint of [...ENDPOINTS].sort(routeOrder)) {
    router.register(endpoint.path, [endpoint.method], (ctx) => endpoint.run(app, ctx));
  }

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
  koa.use(bodyParser(app.config.body_limit_bytes));
  koa.use(router.routes());
  koa.use(async (ctx, next) => {
    await next();
    const allowed = router.stack
      .filter((layer) => layer.match(ctx.path))
      .flatMap((layer) => layer.methods.filter((m) => m !== "HEAD"));
    const unique = [...new Set(allowed)];
    if (unique.length > 0 && ctx.body === undefined) {
      ctx.status = 405;
      ctx.set("Allow", unique.join(", "));
      ctx.body = { result: "error", msg: "Method Not Allowed", code: "BAD_REQUEST", allowed_methods: unique };
    }
  });
  return koa;
}
