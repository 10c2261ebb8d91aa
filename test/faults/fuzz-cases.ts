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

/** Values for any parameter: wrong types, bounds, broken JSON, odd text, deep nesting. */
const VALUES: readonly string[] = [
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

/** The endpoint's path with each parameter segment replaced. */
function fillPath(random: Random, endpoint: Route, ids: readonly string[]): string {
  return endpoint.path
    .split("/")
    .map((segment) => {
      if (!segment.startsWith(":") && !segment.startsWith("*")) return segment;
      const name = segment.slice(1);
      if (endpoint.intPathParams.has(name)) {
        return random() < 0.5 && ids.length > 0 ? pick(random, ids) : pick(random, INT_SEGMENTS);
      }
      return pick(random, TEXT_SEGMENTS);
    })
    .join("/");
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
    const query = new URLSearchParams(params).toString();
    return { method: endpoint.method, path: `${path}?${query}`, headers, label: `${label}, query` };
  }
  const encoding = random();
  if (encoding < 0.45) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    return { method: endpoint.method, path, headers, body: new URLSearchParams(params).toString(), label };
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
    const broken = pick(random, ["{", '{"a":1', "[1,2", "\u0000", '{"a":"\ud800"}', "1", '"x"', "null"]);
    return { method: endpoint.method, path, headers, body: broken, label: "broken json" };
  }
  if (encoding < 0.93) {
    headers["content-type"] = pick(random, CONTENT_TYPES);
    const body = new URLSearchParams(params).toString();
    return { method: endpoint.method, path, headers, body, label: "content type" };
  }
  headers["content-type"] = "application/x-www-form-urlencoded";
  const broken = pick(random, ["%", "%zz=1", "a=%E0%A4%A", "=&=&&", "a[b]=1&a[c]=2", "a=1&".repeat(3000)]);
  return { method: endpoint.method, path, headers, body: broken, label: "broken form" };
}
