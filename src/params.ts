import { JsonableError, badRequest, missingArgument } from "./errors.js";

/**
 * Declarative request parameters, decoded with Zulip's wire rules: strings are taken
 * raw; integers, booleans, lists and objects are JSON text (`5`, `true`, `[1,2]`), and
 * numbers and booleans also come as plain text from zulip-js. Messages copy Zulip's
 * wording because clients and their tests match on it.
 */

/** Validates an already-decoded JSON value; `name` is the path used in messages. */
export type Validator<T> = (value: unknown, name: string) => T;

export interface Param<T> {
  readonly required: boolean;
  readonly aliases: readonly string[];
  readonly inPath: boolean;
  /** A path segment naming something by integer ID: routes match it only when it is digits. */
  readonly intSegment: boolean;
  readonly defaultValue: T | undefined;
  /** JSON-typed: an optional one sent as the text `null` counts as absent (zulip-js). */
  readonly jsonish: boolean;
  decode(raw: string, name: string): T;
  optional(): Param<T | undefined>;
  default(value: T): Param<T>;
  alias(...names: string[]): Param<T>;
}

function makeParam<T>(
  decode: (raw: string, name: string) => T,
  props: Partial<
    Pick<Param<T>, "required" | "aliases" | "inPath" | "intSegment" | "defaultValue" | "jsonish">
  > = {},
): Param<T> {
  const state = {
    required: true,
    aliases: [] as string[],
    inPath: false,
    intSegment: false,
    jsonish: false,
    defaultValue: undefined as T | undefined,
    ...props,
  };
  return {
    ...state,
    decode,
    optional: () => makeParam<T | undefined>(decode, { ...state, required: false }),
    default: (value: T) => makeParam<T>(decode, { ...state, required: false, defaultValue: value }),
    alias: (...names: string[]) => makeParam<T>(decode, { ...state, aliases: [...state.aliases, ...names] }),
  };
}

export function parseJsonText(raw: string, name: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw) as unknown;
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
  if (holdsLoneSurrogate(raw, value)) throw badRequest(`${name} is not valid JSON`);
  return value;
}

/**
 * Whether JSON text parsed to `value` holds a lone surrogate in a string or key: JSON.parse
 * takes "\ud800", which Zulip's JSON decoders (orjson, pydantic's) refuse as invalid JSON.
 */
export function holdsLoneSurrogate(raw: string, value: unknown): boolean {
  return (SURROGATE_ESCAPE.test(raw) || !isWellFormed(raw)) && !wellFormedJson(value);
}

/** A \u escape of a surrogate (a pair's halves too): only then can parsed JSON hold a lone one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Whether every string (and key) in a parsed JSON value is well-formed; iterative, for any depth. */
function wellFormedJson(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") {
      if (!isWellFormed(item)) return false;
    } else if (Array.isArray(item)) {
      for (const child of item) pending.push(child);
    } else if (item !== null && typeof item === "object") {
      for (const [key, child] of Object.entries(item)) {
        if (!isWellFormed(key)) return false;
        pending.push(child);
      }
    }
  }
  return true;
}

// Node 20 has both; TypeScript's ES2023 library does not declare them yet.
type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };

/** No lone UTF-16 surrogate: the text has a UTF-8 form (and encodeURIComponent takes it). */
export const isWellFormed = (text: string) => (text as WellFormedString).isWellFormed();

// ---- value validators (for JSON-decoded values, at any depth) ----

export const validate = {
  int(options: { min?: number; max?: number } = {}): Validator<number> {
    return (value, name) => {
      if (typeof value !== "number" || !Number.isSafeInteger(value)) {
        throw badRequest(`${name} is not an integer`);
      }
      if (options.min !== undefined && value < options.min) throw badRequest(`${name} is too small`);
      if (options.max !== undefined && value > options.max) throw badRequest(`${name} is too large`);
      return value;
    };
  },
  bool(): Validator<boolean> {
    return (value, name) => {
      if (typeof value !== "boolean") throw badRequest(`${name} is not a boolean`);
      return value;
    };
  },
  str(options: StrOptions = {}): Validator<string> {
    return (value, name) => {
      if (typeof value !== "string") throw badRequest(`${name} is not a string`);
      return validateStrOptions(value, name, options);
    };
  },
  list<T>(element: Validator<T>, options: { minLength?: number; maxLength?: number } = {}): Validator<T[]> {
    return (value, name) => {
      if (!Array.isArray(value)) throw badRequest(`${name} is not a list`);
      if (options.minLength !== undefined && value.length < options.minLength) {
        throw badRequest(`${name} is too short`);
      }
      if (options.maxLength !== undefined && value.length > options.maxLength) {
        throw badRequest(`${name} is too long`);
      }
      return value.map((item, i) => element(item, `${name}[${i}]`));
    };
  },
  /** An object with known keys; unknown keys are refused, as Zulip's typed dicts do. */
  dict<S extends Record<string, DictField<unknown>>>(shape: S): Validator<DictValue<S>> {
    return (value, name) => {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw badRequest(`${name} is not a dict`);
      }
      const input = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(shape)) {
        if (!Object.hasOwn(input, key) || input[key] === undefined) {
          if (field.required) throw badRequest(`${key} key is missing from ${name}`);
          continue;
        }
        out[key] = field.validate(input[key], `${name}["${key}"]`);
      }
      for (const key of Object.keys(input)) {
        if (!Object.hasOwn(shape, key)) throw badRequest(`Argument "${key}" at ${name} is unexpected`);
      }
      return out as DictValue<S>;
    };
  },
  /** A string-keyed map of values of one kind. */
  record<T>(valueValidator: Validator<T>): Validator<Record<string, T>> {
    return (value, name) => {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw badRequest(`${name} is not a dict`);
      }
      const out: Record<string, T> = Object.create(null) as Record<string, T>;
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        out[key] = valueValidator(item, `${name}["${key}"]`);
      }
      return out;
    };
  },
  oneOf<const V extends string | number>(values: readonly V[]): Validator<V> {
    return (value, name) => {
      if (!(values as readonly unknown[]).includes(value)) throw badRequest(`Invalid ${name}`);
      return value as V;
    };
  },
  nullable<T>(inner: Validator<T>): Validator<T | null> {
    return (value, name) => (value === null ? null : inner(value, name));
  },
  /** The first alternative that accepts the value; else the last one's error. */
  anyOf<T>(...alternatives: Validator<T>[]): Validator<T> {
    return (value, name) => {
      let last: unknown;
      for (const alt of alternatives) {
        try {
          return alt(value, name);
        } catch (err) {
          last = err;
        }
      }
      throw last instanceof JsonableError ? last : badRequest(`Invalid ${name}`);
    };
  },
  any(): Validator<unknown> {
    return (value) => value;
  },
};

export interface DictField<T> {
  required: boolean;
  validate: Validator<T>;
}
type DictValue<S extends Record<string, DictField<unknown>>> = {
  [K in keyof S as S[K] extends DictField<unknown> & { required: true } ? K : never]: S[K] extends DictField<
    infer T
  >
    ? T
    : never;
} & {
  [K in keyof S as S[K] extends DictField<unknown> & { required: true } ? never : K]?: S[K] extends DictField<
    infer T
  >
    ? T
    : never;
};

export const field = {
  required: <T>(c: Validator<T>) => ({ required: true as const, validate: c }),
  optional: <T>(c: Validator<T>) => ({ required: false as const, validate: c }),
};

export interface StrOptions {
  minLength?: number;
  maxLength?: number;
  trim?: boolean;
  /** Message when the string is empty after trimming (defaults to "{name} cannot be blank"). */
  emptyMessage?: string;
}

/** Counts code points, as Python's len() does. */
export const codePointLength = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

function validateStrOptions(raw: string, name: string, options: StrOptions): string {
  const value = options.trim ? raw.trim() : raw;
  if (options.minLength !== undefined && codePointLength(value) < options.minLength) {
    throw badRequest(options.emptyMessage ?? `${name} cannot be blank`);
  }
  if (options.maxLength !== undefined && codePointLength(value) > options.maxLength) {
    throw badRequest(`${name} is too long (limit: ${options.maxLength} characters)`);
  }
  if (value.includes("\u0000")) throw badRequest(`${name} contains NULL (0x00) characters.`);
  return value;
}

// ---- parameter kinds ----

/** Decodes a number or boolean sent either as JSON or as plain text. */
function decodeScalarJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

export const p = {
  /** A plain-text string (not JSON-encoded). */
  str(options: StrOptions = {}): Param<string> {
    return makeParam((raw, name) => validateStrOptions(raw, name, options));
  },
  /** An integer; `refine` then checks it further (a set of values, a range with its own error). */
  int(
    options: { min?: number; max?: number } = {},
    refine: (value: number, name: string) => number = (value) => value,
  ): Param<number> {
    const c = validate.int(options);
    return makeParam(
      (raw, name) => {
        const trimmed = raw.trim();
        if (!/^-?\d+$/.test(trimmed)) throw badRequest(`${name} is not an integer`);
        return refine(c(Number(trimmed), name), name);
      },
      { jsonish: true },
    );
  },
  bool(): Param<boolean> {
    return makeParam(
      (raw, name) => {
        const value = decodeScalarJson(raw.trim());
        if (value === true || value === false) return value;
        throw badRequest(`${name} is not a boolean`);
      },
      { jsonish: true },
    );
  },
  /** A JSON-encoded value validated by `c`. */
  json<T>(c: Validator<T>): Param<T> {
    return makeParam((raw, name) => c(parseJsonText(raw, name), name), { jsonish: true });
  },
  listOf<T>(element: Validator<T>, options: { minLength?: number; maxLength?: number } = {}): Param<T[]> {
    return p.json(validate.list(element, options));
  },
  /** A plain-text string from a fixed set. */
  oneOf<const V extends string>(values: readonly V[]): Param<V> {
    return makeParam((raw, name) => {
      if (!(values as readonly string[]).includes(raw)) throw badRequest(`Invalid ${name}`);
      return raw as V;
    });
  },
  custom<T>(decode: (raw: string, name: string) => T): Param<T> {
    return makeParam(decode);
  },
  /** A URL path segment (`/messages/:message_id`). */
  path<T>(inner: Param<T>): Param<T> {
    return makeParam((raw, name) => inner.decode(raw, name), { inPath: true });
  },
};

/** An integer ID in the path (`/messages/:message_id`); anything else is "Invalid {name}". */
export const pathInt = () =>
  makeParam(
    (raw, name) => {
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
        throw badRequest(`Invalid ${name}`);
      }
      return Number(raw);
    },
    { inPath: true, intSegment: true },
  );

// ---- parsing a request ----

export type ParamSpec = Record<string, Param<unknown>>;
export type ParamValues<S extends ParamSpec> = { [K in keyof S]: S[K] extends Param<infer T> ? T : never };

/**
 * Every value and name is checked before any is read: a lone surrogate (from a JSON
 * body's "\ud800", or an ill-formed percent-escape: http/percent-decoding.ts) has no
 * UTF-8 form, and code further on (email checks, URL encoding) throws on it. Zulip's
 * request parsing never hands a view such a string: its form decoding substitutes U+FFFD
 * and its JSON decoder refuses lone surrogates (see parseJsonText).
 */
const illFormed = (name: string) =>
  badRequest(`${(name as WellFormedString).toWellFormed()} is not valid UTF-8`);

/** Parameter names every endpoint accepts without reporting them as ignored. */
const GLOBAL_PARAMS = new Set(["client"]);

export function parseParams<S extends ParamSpec>(
  spec: S,
  raw: ReadonlyMap<string, string>,
  pathParams: Readonly<Record<string, string>>,
): { values: ParamValues<S>; ignored: string[] } {
  for (const [key, value] of raw) if (!isWellFormed(value) || !isWellFormed(key)) throw illFormed(key);
  const consumed = new Set<string>();
  const values: Record<string, unknown> = {};
  for (const { name, kind, keys } of compiled(spec)) {
    if (kind.inPath) {
      const value = pathParams[name];
      if (value === undefined) throw new Error(`route lacks path parameter ${name}`);
      if (!isWellFormed(value)) throw illFormed(name);
      values[name] = kind.decode(value, name);
      continue;
    }
    const present = keys.filter((key) => raw.has(key));
    if (present.length > 1) {
      const [first, second] = present as [string, string];
      throw new JsonableError(
        `Can't decide between '${first}' and '${second}' arguments`,
        "REQUEST_CONFUSING_VAR",
        400,
        { var_name1: first, var_name2: second },
      );
    }
    let key = present[0];
    if (key !== undefined && kind.jsonish && !kind.required && raw.get(key) === "null") {
      // zulip-js sends an unset optional value as `null`: absent, unless null is meaningful.
      try {
        values[name] = kind.decode("null", key);
        consumed.add(key);
        continue;
      } catch {
        consumed.add(key);
        key = undefined;
      }
    }
    if (key === undefined) {
      if (kind.required) throw missingArgument(name);
      values[name] = kind.defaultValue;
      continue;
    }
    consumed.add(key);
    values[name] = kind.decode(raw.get(key)!, key);
  }
  const ignored =
    consumed.size === raw.size
      ? []
      : [...raw.keys()].filter((k) => !consumed.has(k) && !GLOBAL_PARAMS.has(k)).sort();
  return { values: values as ParamValues<S>, ignored };
}

interface CompiledParam {
  name: string;
  kind: ParamSpec[string];
  /** The name and its aliases: the keys a request may spell it with. */
  keys: readonly string[];
}

/** Each spec's parameters as a list, made on its first request rather than on every one. */
const compiledSpecs = new WeakMap<ParamSpec, readonly CompiledParam[]>();

function compiled(spec: ParamSpec): readonly CompiledParam[] {
  let list = compiledSpecs.get(spec);
  if (!list) {
    list = Object.entries(spec).map(([name, kind]) => ({ name, kind, keys: [name, ...kind.aliases] }));
    compiledSpecs.set(spec, list);
  }
  return list;
}
