import { SlackImportError } from "./errors.js";

/**
 * Checked reads of Slack's JSON: a field of the wrong kind is refused with the file and the
 * field's path (users.json[3].profile.email), never carried on as undefined.
 */
export type Json = Record<string, unknown>;

export function arrayIn(value: unknown, file: string): Json[] {
  if (!Array.isArray(value)) throw new SlackImportError(`${file}: expected a JSON array`);
  value.forEach((item, i) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw new SlackImportError(`${file}: ${file}[${i}] is not an object`);
    }
  });
  return value as Json[];
}

const bad = (where: string, field: string, what: string) =>
  new SlackImportError(`${where}: field "${field}" ${what}`);

export function str(obj: Json, field: string, where: string): string {
  const v = obj[field];
  if (typeof v !== "string") throw bad(where, field, "is missing or not a string");
  return v;
}

export function optStr(obj: Json, field: string, where: string): string | undefined {
  const v = obj[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw bad(where, field, "is not a string");
  return v;
}

export function optBool(obj: Json, field: string, where: string): boolean {
  const v = obj[field];
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") throw bad(where, field, "is not true or false");
  return v;
}

export function optObj(obj: Json, field: string, where: string): Json | undefined {
  const v = obj[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "object" || Array.isArray(v)) throw bad(where, field, "is not an object");
  return v as Json;
}

export function strList(obj: Json, field: string, where: string): string[] {
  const v = obj[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) {
    throw bad(where, field, "is not a list of strings");
  }
  return v as string[];
}

export function objList(obj: Json, field: string, where: string): Json[] {
  const v = obj[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((o) => typeof o !== "object" || o === null || Array.isArray(o))) {
    throw bad(where, field, "is not a list of objects");
  }
  return v as Json[];
}

/** Slack's "ts": seconds with microseconds, as a string ("1700000000.000200"); also a number in old files. */
export function timestamp(obj: Json, field: string, where: string): number {
  const v = obj[field];
  const n = typeof v === "string" ? Number(v) : typeof v === "number" ? v : NaN;
  if (!Number.isFinite(n) || n < 0) throw bad(where, field, "is missing or not a timestamp");
  return n;
}

export function optNumber(obj: Json, field: string, where: string): number | undefined {
  const v = obj[field];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n)) throw bad(where, field, "is not a number");
  return n;
}
