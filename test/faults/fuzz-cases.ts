/**
 * Malformed requests for the fault pass: values, structures, encodings and headers a
 * careless or hostile client might send. Deterministic for a seed, so a failure repeats.
 */

export type Random = () => number;

/** mulberry32: a small seeded generator (Math.random cannot be seeded). */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

/**
 * Ill-formed Unicode, in each form it reaches a parameter: lone UTF-16 surrogates (high,
 * low, reversed, after a pair's first half), which JSON bodies carry as escapes; the same
 * escaped inside JSON text; and percent-encoded ill-formed UTF-8 (a surrogate's encoding,
 * overlong forms, bytes no sequence starts with, a cut sequence, beyond U+10FFFF), which
 * query strings and form bodies carry as they are (formEncode).
 */
const LONE_SURROGATES = ["\ud800", "\udc00", "a\udbff", "\udfff\ud800", "x\ud83d@zulip.test"];
const ESCAPED_SURROGATES = [
  '"\\ud800"',
  '["\\udc00"]',
  '[["topic","\\udbff"]]',
  '[{"name":"x\\udfff"}]',
  '{"\\ud800":1}',
];
const ILL_FORMED_UTF8 = [
  "%ED%A0%80",
  "a%ED%B0%80",
  "%C0%AF",
  "%E0%80%AF",
  "%F0%80%80%AF",
  "%FF",
  "%80",
  "x%E2%82",
  "%F4%90%80%80",
  "x%ED%A0%80%40zulip.test",
];
const PRE_ENCODED: ReadonlySet<string> = new Set(ILL_FORMED_UTF8);

/** Values for any parameter: wrong types, bounds, broken JSON, odd text, deep nesting. */
const VALUES: readonly string[] = [
  ...LONE_SURROGATES,
  ...ESCAPED_SURROGATES,
  ...ILL_FORMED_UTF8,
  "",
  " ",
  "null",
  "true",
  "false",
  "0",
  "-1",
  "1.5",
  "1e309",
  "NaN",
  "-0",
  "9007199254740993",
  "99999999999999999999999999",
  "[]",
  "{}",
  "[1,",
  '{"a":',
  '"quoted"',
  "[null]",
  '[{"operator":"stream"}]',
  '[["stream"]]',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  "[".repeat(2000),
  `[${"[".repeat(200)}1${"]".repeat(200)}]`,
  JSON.stringify(Array.from({ length: 2000 }, (_, i) => i)),
  "\u0000",
  "a\u0000b",
  "\ud800",
  "🙂".repeat(200),
  "x".repeat(70000),
  "<script>alert(1)</script>",
  "'; DROP TABLE users; --",
  "../../../../etc/passwd",
  "%00",
  "%E0%A4%A",
  "\r\nX-Injected: 1",
  "general",
  "me",
  "*",
];

/**
 * Integer path segments (the router takes digits only): zero, huge and padded. Real IDs come
 * from the caller (never an actor's own: an owner's well-formed DELETE /users/{id} would end
 * that actor's part of the pass).
 */
const INT_SEGMENTS = ["0", "00", "4294967297", "2147483648", "99999999999999999999999999", "000000000"];
/** Other path segments, percent-encoded where the raw text would not be a valid path. */
const TEXT_SEGMENTS = [
  "x",
  "me",
  "%00",
  "%ff",
  "%2e%2e",
  "..%2f..%2fetc",
  "a".repeat(600),
  "%F0%9F%99%82",
  "%ED%A0%80",
  "%C0%AF",
  "x%ED%B0%80%40zulip.test",
  "null",
  "-1",
  "desdemona%40zulip.test",
];

/** What the fuzzer needs of a route: chatd's own, or one of Zulip's API description. */
export interface Route {
  readonly method: string;
  /** `:name` for a path parameter, as in src/http/router.ts. */
  readonly path: string;
  readonly intPathParams: ReadonlySet<string>;
  readonly paramNames: readonly string[];
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | FormData;
  /** What was malformed, for the report. */
  label: string;
}

/** The endpoint's path with each parameter segment replaced (`fixed` ones as given). */
function fillPath(
  random: Random,
  endpoint: Route,
  ids: readonly string[],
  fixed: Record<string, string> = {},
): string {
  return endpoint.path
    .split("/")
    .map((segment) => {
      if (!segment.startsWith(":") && !segment.startsWith("*")) return segment;
      const name = segment.slice(1);
      if (fixed[name] !== undefined) return fixed[name];
      if (endpoint.intPathParams.has(name)) {
        return random() < 0.5 && ids.length > 0 ? pick(random, ids) : pick(random, INT_SEGMENTS);
      }
      return pick(random, TEXT_SEGMENTS);
    })
    .join("/");
}

/** A query string or form body; ill-formed UTF-8 goes as it is (URLSearchParams would mend it). */
function formEncode(params: ReadonlyArray<readonly [string, string]>): string {
  return params
    .map(([key, value]) =>
      PRE_ENCODED.has(value)
        ? `${new URLSearchParams([[key, ""]]).toString()}${value}`
        : new URLSearchParams([[key, value]]).toString(),
    )
    .join("&");
}

/** Some of the endpoint's own parameters (and a stray one), each with a malformed value. */
function fuzzParams(random: Random, endpoint: Route): Array<[string, string]> {
  const names = [...endpoint.paramNames, "stray_param", "__proto__"];
  const count = 1 + Math.floor(random() * Math.min(4, names.length));
  return Array.from({ length: count }, () => [pick(random, names), pick(random, VALUES)]);
}

const AUTH_HEADERS = [
  "Basic",
  "Basic !!!",
  `Basic ${Buffer.from("no-colon").toString("base64")}`,
  `Basic ${Buffer.from(":").toString("base64")}`,
  `Basic ${Buffer.from("desdemona@zulip.test:").toString("base64")}`,
  `Basic ${Buffer.from(`${"x".repeat(5000)}:y`).toString("base64")}`,
  "Bearer abc",
  "Digest username=x",
];

const CONTENT_TYPES = [
  "text/plain",
  "application/xml",
  "application/json; charset=latin1",
  "application/x-www-form-urlencoded; charset=utf-16",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  "application/octet-stream",
  "",
];

/**
 * One malformed request for the endpoint. `auth` is the actor's Authorization header
 * (none for anonymous); a share of requests replace it with a malformed one.
 */
export function fuzzRequest(
  random: Random,
  endpoint: Route,
  auth: string | null,
  ids: readonly string[],
): FuzzRequest {
  const path = `/api/v1${fillPath(random, endpoint, ids)}`;
  const params = fuzzParams(random, endpoint);
  const headers: Record<string, string> = {};
  let label = "values";
  if (auth) headers.authorization = auth;
  if (random() < 0.08) {
    headers.authorization = pick(random, AUTH_HEADERS);
    label = "authorization header";
  }
  if (random() < 0.05) headers["user-agent"] = pick(random, ["", "\u00ff", "x".repeat(8000)]);
  const inQuery = endpoint.method === "GET" || random() < 0.15;
  if (inQuery) {
    const query = formEncode(params);
    return { method: endpoint.method, path: `${path}?${query}`, headers, label: `${label}, query` };
  }
  const encoding = random();
  if (encoding < 0.45) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    return { method: endpoint.method, path, headers, body: formEncode(params), label };
  }
  if (encoding < 0.65) {
    headers["content-type"] = "application/json";
    const structured = Object.fromEntries(
      params.map(([key, value]) => [key, pick(random, [value, 1, -1, null, true, [value], { value }])]),
    );
    return { method: endpoint.method, path, headers, body: JSON.stringify(structured), label: "json" };
  }
  if (encoding < 0.75) {
    const form = new FormData();
    for (const [key, value] of params) form.append(key, value);
    if (random() < 0.3) form.append("file", new Blob(["not an image"]), "x.png");
    return { method: endpoint.method, path, headers, body: form, label: "multipart" };
  }
  if (encoding < 0.85) {
    headers["content-type"] = "application/json";
    const broken = pick(random, [
      "{",
      '{"a":1',
      "[1,2",
      "\u0000",
      '{"a":"\ud800"}',
      '{"a":"\\ud800"}',
      "1",
      '"x"',
      "null",
    ]);
    return { method: endpoint.method, path, headers, body: broken, label: "broken json" };
  }
  if (encoding < 0.93) {
    headers["content-type"] = pick(random, CONTENT_TYPES);
    return { method: endpoint.method, path, headers, body: formEncode(params), label: "content type" };
  }
  headers["content-type"] = "application/x-www-form-urlencoded";
  const broken = pick(random, [
    "%",
    "%zz=1",
    "a=%E0%A4%A",
    "%ED%A0%80=1",
    "=&=&&",
    "a[b]=1&a[c]=2",
    "a=1&".repeat(3000),
  ]);
  return { method: endpoint.method, path, headers, body: broken, label: "broken form" };
}

/** The three forms ill-formed Unicode takes in a request (see above). */
export const ILL_FORMED_KINDS = {
  "lone surrogate": LONE_SURROGATES,
  "escaped surrogate": ESCAPED_SURROGATES,
  "ill-formed UTF-8": ILL_FORMED_UTF8,
} as const;
export type IllFormedKind = keyof typeof ILL_FORMED_KINDS;

/**
 * The sweep for ill-formed Unicode: one request with only `target` ill-formed, in the
 * given form, each of `fills` set to "1" (enough for most handlers to read the target),
 * and `pathId` in every other path parameter. A lone surrogate goes in a JSON body,
 * ill-formed UTF-8 in a form body, an escaped surrogate in either; a GET carries its
 * parameters in the query string, where a lone surrogate cannot travel (it would be sent
 * as U+FFFD), and a path parameter takes ill-formed UTF-8 only. Null for those combinations.
 */
export function illFormedRequest(
  random: Random,
  endpoint: Route,
  target: string,
  kind: IllFormedKind,
  fills: readonly string[],
  auth: string | null,
  pathId: string | undefined,
): FuzzRequest | null {
  const headers: Record<string, string> = auth ? { authorization: auth } : {};
  const value = pick(random, ILL_FORMED_KINDS[kind]);
  const label = `${kind} in ${target}`;
  // A real ID in the path, so that the handler is reached.
  const fixed: Record<string, string> = {};
  if (pathId !== undefined) for (const name of pathParams(endpoint)) fixed[name] = pathId;
  if (pathParams(endpoint).includes(target)) {
    if (kind !== "ill-formed UTF-8") return null;
    const path = `/api/v1${fillPath(random, endpoint, [], { ...fixed, [target]: value })}`;
    return { method: endpoint.method, path, headers, label: `${label}, path` };
  }
  const path = `/api/v1${fillPath(random, endpoint, [], fixed)}`;
  const params = [...fills.map((name) => [name, "1"] as const), [target, value] as const];
  if (endpoint.method === "GET") {
    if (kind === "lone surrogate") return null;
    return { method: "GET", path: `${path}?${formEncode(params)}`, headers, label: `${label}, query` };
  }
  if (kind === "ill-formed UTF-8" || (kind === "escaped surrogate" && random() < 0.5)) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    return { method: endpoint.method, path, headers, body: formEncode(params), label: `${label}, form` };
  }
  headers["content-type"] = "application/json";
  const body = JSON.stringify(Object.fromEntries(params));
  return { method: endpoint.method, path, headers, body, label: `${label}, json` };
}

/** The names of the endpoint's path parameters (`:name` and `*name` segments). */
export const pathParams = (endpoint: Route): string[] =>
  endpoint.path
    .split("/")
    .filter((segment) => segment.startsWith(":") || segment.startsWith("*"))
    .map((segment) => segment.slice(1));
