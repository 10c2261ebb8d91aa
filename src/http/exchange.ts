import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "koa";
import { requestParams } from "./body.js";

/**
 * A request and its response as an endpoint sees them, whoever carries them: Koa's
 * context (bodies, uploads, HEAD) or plain Node (http/plain-api.ts, requests without a
 * body). Both give an endpoint the same parameters and keep the same headers.
 */
export interface Exchange {
  /**
   * Under /json/ (the web client): authenticated by session cookie and CSRF token, never
   * by an Authorization header; under /api/v1/ the other way round.
   */
  readonly viaSession: boolean;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** A request header by lower-case name; "" when absent (as Koa's ctx.get). */
  header(name: string): string;
  /** Every request parameter, flat: the query string's, then the body's (see http/body.ts). */
  params(): Map<string, string>;
  /** The `client` parameter: the query string's when given once, else the body's. */
  clientParam(): string | undefined;
  /** Response headers (rate-limit counts) that stay whatever the answer turns out to be. */
  setHeaders(headers: Record<string, string>): void;
  /** The authenticated caller, for the request log. */
  setUserId(userId: number): void;
}

/** Koa's context as an Exchange. */
export function koaExchange(ctx: Context, viaSession: boolean): Exchange {
  return {
    viaSession,
    req: ctx.req,
    res: ctx.res,
    header: (name) => ctx.get(name),
    params: () => requestParams(ctx),
    clientParam() {
      const fromQuery = ctx.query.client;
      if (typeof fromQuery === "string") return fromQuery;
      const fromBody = (ctx.request as { body?: Record<string, unknown> }).body?.client;
      return typeof fromBody === "string" ? fromBody : undefined;
    },
    setHeaders: (headers) => ctx.set(headers),
    setUserId(userId) {
      ctx.state.userId = userId;
    },
  };
}
