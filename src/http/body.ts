import { Writable } from "node:stream";
import type { Context, Middleware } from "koa";
import { JsonableError, badRequest, rateLimitHit } from "../errors.js";
import { ConcurrencyGate } from "../lib/concurrency-gate.js";
import { BodyReadError, bodyRefusal, readBodyText } from "./body-text.js";
import { formEntries } from "./percent-decoding.js";
import { drainRequest } from "./reclaim.js";

/**
 * Request bodies on POST, PUT, PATCH and DELETE (Zulip clients send form bodies on DELETE
 * too): urlencoded forms kept flat (`a[b]=1` stays the key "a[b]", never a nested object),
 * JSON, and multipart without files. This parses exactly as the koa-body setup it replaced
 * did, without loading koa-body (and zod, qs, co-body) at start; multipart loads formidable
 * on its first use.
 */

/** What the body parser found; requestParams reads it. */
type ParsedBody =
  | { kind: "form"; text: string }
  | { kind: "json"; value: unknown }
  | { kind: "multipart"; fields: Record<string, string[] | undefined> };

const PARSED = Symbol("parsedBody");
type WithBody = Context & { [PARSED]?: ParsedBody };

const PARSED_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** koa-body's JSON content types. */
const JSON_TYPES = [
  "application/json",
  "application/json-patch+json",
  "application/vnd.api+json",
  "application/csp-report",
  "application/reports+json",
];

export function bodyParser(limitBytes: number, maxConcurrent: number): Middleware {
  // A body being read is held in memory whole (up to limitBytes): only so many at once, a
  // bounded number more wait (their bytes stay in the socket), and the rest are refused.
  const gate = new ConcurrencyGate(maxConcurrent, maxConcurrent * 10, () => rateLimitHit(1, {}));
  return async (ctx, next) => {
    try {
      await gate.run(async () => {
        const parsed = await parseBody(ctx, limitBytes);
        if (parsed) {
          (ctx as WithBody)[PARSED] = parsed;
          (ctx.request as { body?: unknown }).body = koaBodyShape(parsed);
        }
      });
    } catch (err) {
      drainRequest(ctx.req);
      throw err instanceof JsonableError ? err : bodyError(err as Error & { httpCode?: number });
    }
    await next();
  };
}

/** The body by its content type; undefined when there is none to parse. */
async function parseBody(ctx: Context, limitBytes: number): Promise<ParsedBody | undefined> {
  if (!PARSED_METHODS.has(ctx.method.toUpperCase())) return undefined;
  const kind = ctx.is(JSON_TYPES)
    ? "json"
    : ctx.is("urlencoded")
      ? "form"
      : ctx.is("multipart")
        ? "multipart"
        : undefined;
  if (kind === undefined) return undefined;
  if (kind === "multipart") return { kind, fields: await parseMultipart(ctx, limitBytes) };
  const text = await readBodyText(ctx.req, limitBytes);
  if (kind === "form") return { kind, text };
  return { kind, value: text === "" ? text : parseJsonRefusingProto(text) };
}

/** Multipart fields; a file part is refused (uploads have their own endpoints: http/upload.ts). */
async function parseMultipart(
  ctx: Context,
  limitBytes: number,
): Promise<Record<string, string[] | undefined>> {
  const { default: formidable } = await import("formidable");
  const form = formidable({
    multiples: true,
    maxFields: 1000,
    maxFieldsSize: limitBytes,
    maxFiles: 0,
    allowEmptyFiles: false,
    // A file part is refused, yet formidable would create a file for it in the system's
    // temporary directory, and one for every part it had already read past the refusal
    // (hundreds per request, never removed): with this it writes none anywhere.
    fileWriteStreamHandler: () => new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  const [fields] = await form.parse(ctx.req);
  return fields;
}

/**
 * `ctx.request.body` as koa-body left it (endpoint.ts reads `client` there): a repeated
 * form or multipart field is a list, a single one its string.
 */
function koaBodyShape(body: ParsedBody): unknown {
  if (body.kind === "json") return body.value;
  const shaped: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  if (body.kind === "multipart") {
    for (const [key, values] of Object.entries(body.fields))
      if (values) shaped[key] = values.length === 1 ? values[0]! : values;
    return shaped;
  }
  for (const [key, value] of formEntries(body.text)) {
    const seen = shaped[key];
    shaped[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return shaped;
}

/** JSON.parse that refuses a `__proto__` key anywhere, as @hapi/bourne does. */
function parseJsonRefusingProto(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  if (value === null || typeof value !== "object" || !PROTO_KEY.test(text)) return value;
  let level: object[] = [value];
  while (level.length > 0) {
    const next: object[] = [];
    for (const node of level) {
      if (Object.prototype.hasOwnProperty.call(node, "__proto__"))
        throw new SyntaxError("Object contains forbidden prototype property");
      for (const key in node) {
        const child = (node as Record<string, unknown>)[key];
        if (child && typeof child === "object") next.push(child);
      }
    }
    level = next;
  }
  return value;
}

/** A "__proto__" key, also written with \u escapes (bourne's suspect pattern). */
const PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

function bodyError(err: Error & { httpCode?: number }): JsonableError {
  const status = err instanceof BodyReadError ? err.status : err.httpCode;
  if (/maxFieldsSize|maxTotalFileSize/.test(err.message)) return bodyRefusal(413);
  if (status !== 413 && /maxFiles/.test(err.message))
    return badRequest("File uploads are not supported here");
  return bodyRefusal(status);
}

/**
 * All request parameters as one flat string map: the body's fields first, then the
 * query string's (Zulip reads both, for every method). A repeated key keeps its last
 * value. Non-string JSON values are re-encoded as JSON text, the form-field wire format.
 */
export function requestParams(ctx: Context): Map<string, string> {
  const params = new Map<string, string>();
  for (const [key, value] of formEntries(ctx.querystring)) params.set(key, value);
  for (const [key, value] of bodyEntries(ctx)) params.set(key, value);
  return params;
}

function* bodyEntries(ctx: Context): Iterable<[string, string]> {
  const body = (ctx as WithBody)[PARSED];
  if (body === undefined) return;
  if (body.kind === "form") {
    const entries = new Map<string, string>();
    for (const [key, value] of formEntries(body.text)) entries.set(key, value);
    yield* entries;
    return;
  }
  if (body.kind === "multipart") {
    for (const [key, values] of Object.entries(body.fields)) {
      const last = values?.[values.length - 1];
      if (typeof last === "string") yield [key, last];
    }
    return;
  }
  const value = body.value;
  if (value === null) return;
  if (typeof value !== "object" || Array.isArray(value)) {
    if (ctx.is("json")) throw badRequest("Malformed JSON");
    return;
  }
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue;
    yield [key, typeof field === "string" ? field : JSON.stringify(field)];
  }
}
