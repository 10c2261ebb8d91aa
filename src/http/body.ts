import type { Context, Middleware } from "koa";
import { HttpMethodEnum, koaBody } from "koa-body";
import { JsonableError, badRequest, rateLimitHit } from "../errors.js";
import { ConcurrencyGate } from "../lib/concurrency-gate.js";
import { drainRequest } from "./reclaim.js";

/**
 * koa-body for every method (Zulip clients send form bodies on DELETE too), multipart
 * without files, and the raw text kept so urlencoded bodies are parsed flat: `a[b]=1`
 * stays the key "a[b]", never a nested object.
 */
export function bodyParser(limitBytes: number, maxConcurrent: number): Middleware {
  const parse = koaBody({
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    multipart: true,
    urlencoded: true,
    json: true,
    text: false,
    jsonStrict: false,
    includeUnparsed: true,
    formLimit: limitBytes,
    jsonLimit: limitBytes,
    textLimit: limitBytes,
    formidable: {
      maxFields: 1000,
      maxFieldsSize: limitBytes,
      maxFiles: 0,
      allowEmptyFiles: false,
    },
    onError: (err) => {
      throw bodyError(err);
    },
  });
  // A body being read is held in memory whole (up to limitBytes): only so many at once, a
  // bounded number more wait (their bytes stay in the socket), and the rest are refused.
  const gate = new ConcurrencyGate(maxConcurrent, maxConcurrent * 10, () => rateLimitHit(1, {}));
  return async (ctx, next) => {
    try {
      await gate.run(async () => {
        await parse(ctx, () => Promise.resolve());
      });
    } catch (err) {
      drainRequest(ctx.req);
      throw err;
    }
    await next();
  };
}

function bodyError(err: Error & { status?: number; type?: string; httpCode?: number }): JsonableError {
  const status = err.status ?? err.httpCode;
  if (
    status === 413 ||
    err.type === "entity.too.large" ||
    /maxFieldsSize|maxTotalFileSize/.test(err.message)
  ) {
    return new JsonableError("Request body too large", "PAYLOAD_TOO_LARGE", 413);
  }
  if (/maxFiles/.test(err.message)) return badRequest("File uploads are not supported here");
  if (status === 415) return badRequest("Unsupported request body type");
  return badRequest("Malformed request body");
}

/**
 * All request parameters as one flat string map: the body's fields first, then the
 * query string's (Zulip reads both, for every method). A repeated key keeps its last
 * value. Non-string JSON values are re-encoded as JSON text, the form-field wire format.
 */
export function requestParams(ctx: Context): Map<string, string> {
  const params = new Map<string, string>();
  for (const [key, value] of Object.entries(ctx.query)) {
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) params.set(key, last);
  }
  for (const [key, value] of bodyEntries(ctx)) params.set(key, value);
  return params;
}

function* bodyEntries(ctx: Context): Iterable<[string, string]> {
  const request = ctx.request as Context["request"] & { body?: unknown; rawBody?: unknown };
  const body = request.body as Record<string, unknown> | undefined;
  if (body === undefined || body === null) return;
  const raw = request.rawBody;
  if (ctx.is("application/x-www-form-urlencoded") && typeof raw === "string") {
    const entries = new Map<string, string>();
    for (const [key, value] of new URLSearchParams(raw)) entries.set(key, value);
    yield* entries;
    return;
  }
  if (typeof body !== "object" || Array.isArray(body)) {
    if (ctx.is("json")) throw badRequest("Malformed JSON");
    return;
  }
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (typeof value === "string") yield [key, value];
    else if (Array.isArray(value) && ctx.is("multipart")) {
      const last: unknown = value[value.length - 1];
      if (typeof last === "string") yield [key, last];
    } else yield [key, JSON.stringify(value)];
  }
}
