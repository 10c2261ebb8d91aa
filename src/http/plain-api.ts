import type { IncomingMessage, ServerResponse } from "node:http";
import type { App } from "../app.js";
import type { RouteEntry } from "./endpoint.js";
import type { Exchange } from "./exchange.js";
import { jsonBody } from "./json-body.js";
import { formEntries } from "./percent-decoding.js";
import { failure, logRequest } from "./outcome.js";
import type { Router } from "./router.js";
import { apiPath, viaSession } from "./prefixes.js";

/** Characters that make Koa read a URL the long way (parseurl): such requests stay Koa's. */
const UNUSUAL_URL = /[\t\n\f\r #\u00a0\ufeff]/;

const JSON_TYPE = "application/json; charset=utf-8";

/** A body assembled from parts is copied into one buffer up to this size, else written part by part. */
export const JOIN_UP_TO_BYTES = 16 * 1024;

export type PlainHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | null;

/**
 * API requests without a body (GET) answered over plain Node: no Koa context, no
 * middleware chain, the answer written with one `end`. Each goes to the same endpoint,
 * with the same authentication, rate limits, parameters, log line, status, headers and
 * JSON as Koa would give it (koa-app.ts); the full suite runs through both. Returns null
 * for every request it leaves to Koa: other methods (bodies, uploads, HEAD), paths
 * without an endpoint (404 and 405 answers) and URLs Koa would parse differently.
 */
export function plainApi(app: App, router: Router): PlainHandler {
  const logRequests = app.logger.enabled("info");
  return (req, res) => {
    if (req.method !== "GET") return null;
    const url = req.url ?? "";
    if (UNUSUAL_URL.test(url)) return null;
    const mark = url.indexOf("?");
    const path = mark < 0 ? url : url.slice(0, mark);
    const routePath = apiPath(path);
    if (routePath === null) return null;
    const found = router.resolve("GET", routePath);
    if (found.kind !== "endpoint" || !found.endpoint.answer || found.endpoint.streamsBody) return null;
    const exchange = new PlainExchange(req, res, mark < 0 ? "" : url.slice(mark + 1), viaSession(path));
    return serve(app, found.endpoint, exchange, found.params, path, logRequests);
  };
}

async function serve(
  app: App,
  endpoint: RouteEntry,
  exchange: PlainExchange,
  pathParams: Readonly<Record<string, string>>,
  path: string,
  logRequests: boolean,
): Promise<void> {
  const started = logRequests ? performance.now() : 0;
  let status = 200;
  try {
    send(exchange.res, status, await endpoint.answer!(app, exchange, pathParams));
  } catch (err) {
    const failed = failure(app, "GET", path, err);
    status = failed.status;
    exchange.setHeaders(failed.headers);
    send(exchange.res, status, failed.body);
  } finally {
    if (logRequests) logRequest(app, "GET", path, status, started, exchange.userId);
  }
}

/** As Koa responds with a JSON body: Content-Type, then Content-Length, nothing once the socket is gone. */
function send(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.statusCode = status;
  if (res.writableEnded || (res.socket !== null && !res.socket.writable)) {
    res.end();
    return;
  }
  const encoded = jsonBody(body);
  res.setHeader("Content-Type", JSON_TYPE);
  if (typeof encoded === "string") {
    res.setHeader("Content-Length", Buffer.byteLength(encoded));
    res.end(encoded);
    return;
  }
  let length = 0;
  for (const part of encoded) length += part.length;
  res.setHeader("Content-Length", length);
  if (length <= JOIN_UP_TO_BYTES) {
    // One small buffer: a write per part cost more (each its own queued write, all in a
    // writev) than copying a few KB, as a poll's answer with one message event is.
    res.end(Buffer.concat(encoded, length));
    return;
  }
  // The first write corks the socket until the next tick: the parts go out in one writev.
  for (let i = 0; i < encoded.length - 1; i++) res.write(encoded[i]);
  res.end(encoded[encoded.length - 1]);
}

/** A request over plain Node; parameters come from the query string alone (no body). */
class PlainExchange implements Exchange {
  userId: number | undefined;
  private entries: Iterable<[string, string]> | null = null;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private readonly query: string,
    readonly viaSession: boolean,
  ) {}

  header(name: string): string {
    const value = this.req.headers[name];
    return typeof value === "string" ? value : "";
  }

  params(): Map<string, string> {
    const params = new Map<string, string>();
    if (this.query !== "") for (const [key, value] of this.queryEntries()) params.set(key, value);
    // Read once per request: a parked long-poll need not keep the parsed query as well.
    this.entries = null;
    return params;
  }

  clientParam(): string | undefined {
    if (this.query === "") return undefined;
    // Given twice, Koa's query holds a list: no client name from it.
    let client: string | undefined;
    let given = 0;
    for (const [key, value] of this.queryEntries()) if (key === "client" && given++ === 0) client = value;
    return given === 1 ? client : undefined;
  }

  setHeaders(headers: Record<string, string>): void {
    for (const [name, value] of Object.entries(headers)) this.res.setHeader(name, value);
  }

  setUserId(userId: number): void {
    this.userId = userId;
  }

  private queryEntries(): Iterable<[string, string]> {
    return (this.entries ??= formEntries(this.query));
  }
}
