/**
 * Checks that mirror a client's JSON decoders: each takes a value and its path and returns
 * what the decoder would reject (an empty list when it decodes). Absent and null count as
 * the decoder sees them: a required check rejects both, `optional` accepts both.
 */
export type Check = (value: unknown, path: string) => string[];

const show = (value: unknown) => (value === undefined ? "missing" : JSON.stringify(value));
const reject = (path: string, value: unknown, expected: string) => [
  `${path}: ${show(value)}, expected ${expected}`,
];

export const int: Check = (v, p) => (Number.isInteger(v) ? [] : reject(p, v, "an integer"));
export const string: Check = (v, p) => (typeof v === "string" ? [] : reject(p, v, "a string"));
export const bool: Check = (v, p) => (typeof v === "boolean" ? [] : reject(p, v, "a boolean"));

/** Absent or null is fine (Dart `as X?`, or a default); otherwise it must pass `check`. */
export const optional =
  (check: Check): Check =>
  (v, p) =>
    v === undefined || v === null ? [] : check(v, p);

/** One of a fixed set of wire values (an enum). */
export const oneOf =
  (...values: ReadonlyArray<string | number>): Check =>
  (v, p) =>
    values.includes(v as string | number) ? [] : reject(p, v, `one of ${JSON.stringify(values)}`);

/** Passes if any of the alternatives does. */
export const either =
  (...checks: Check[]): Check =>
  (v, p) => {
    const failures = checks.map((check) => check(v, p));
    return failures.some((f) => f.length === 0) ? [] : failures.flat();
  };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export const list =
  (item: Check): Check =>
  (v, p) =>
    Array.isArray(v) ? v.flatMap((x, i) => item(x, `${p}[${i}]`)) : reject(p, v, "a list");

/** A JSON object used as a map; with `intKeys`, its keys go through int.parse. */
export const map =
  (value: Check, options: { intKeys?: boolean } = {}): Check =>
  (v, p) => {
    if (!isObject(v)) return reject(p, v, "an object");
    return Object.entries(v).flatMap(([k, x]) => [
      ...(options.intKeys && !/^-?\d+$/.test(k) ? [`${p}: key ${JSON.stringify(k)} is not an integer`] : []),
      ...value(x, `${p}.${k}`),
    ]);
  };

/** An object with the named fields (others are ignored, as json_serializable does). */
export const object =
  (fields: Record<string, Check>): Check =>
  (v, p) =>
    isObject(v)
      ? Object.entries(fields).flatMap(([k, check]) => check(v[k], `${p}.${k}`))
      : reject(p, v, "an object");

/** A string that parses as an absolute http(s) URL. */
export const absoluteUrl: Check = (v, p) => {
  if (typeof v !== "string") return reject(p, v, "an absolute URL");
  try {
    return ["http:", "https:"].includes(new URL(v).protocol) ? [] : reject(p, v, "an http(s) URL");
  } catch {
    return reject(p, v, "an absolute URL");
  }
};

/** A string DateTime.parse accepts: ISO 8601. */
export const isoDate: Check = (v, p) =>
  typeof v === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v) && !Number.isNaN(Date.parse(v))
    ? []
    : reject(p, v, "an ISO 8601 date");

/** `#rrggbb`, lowercase (int.parse(substring(1), radix: 16); lowercase is asserted). */
export const hexColor: Check = (v, p) =>
  typeof v === "string" && /^#[0-9a-f]{6}$/.test(v) ? [] : reject(p, v, "a #rrggbb colour");
