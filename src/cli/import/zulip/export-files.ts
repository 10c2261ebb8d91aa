import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ImportRefused } from "./refusal.js";

/** A parsed JSON file of the export: an object of tables (lists of records). */
export type ExportTables = Record<string, unknown>;
export type ZulipRecord = Record<string, unknown>;

/** Parses one JSON file of the export whole (each is bounded: realm.json, or 1,000 messages). */
export function parseExportJson(dir: string, name: string): unknown {
  const path = join(dir, name);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new ImportRefused(`${name} is missing or unreadable in the export`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ImportRefused(`${name} is not valid JSON (${(err as Error).message})`);
  }
  return value;
}

/** A JSON file of tables (realm.json, attachment.json, messages-*.json). */
export function readExportJson(dir: string, name: string): ExportTables {
  const value = parseExportJson(dir, name);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ImportRefused(`${name} is not a JSON object of tables`);
  }
  return value as ExportTables;
}

/** A table of a parsed file: a list of records, or [] when the export leaves it out. */
export function table(data: ExportTables, file: string, name: string): ZulipRecord[] {
  const value = data[name];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ImportRefused(`${file}: ${name} is not a list`);
  value.forEach((item, i) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw new ImportRefused(`${file}: ${name}[${i}] is not an object`);
    }
  });
  return value as ZulipRecord[];
}

/**
 * The export's directory: `dir` itself when it holds realm.json, else its single
 * subdirectory that does (a tar.gz unpacks into one top-level directory).
 */
export function exportRoot(dir: string): string {
  if (existsSync(join(dir, "realm.json"))) return dir;
  const entries = readdirSync(dir).filter((name) => !name.startsWith("."));
  if (entries.length === 1 && statSync(join(dir, entries[0]!)).isDirectory()) {
    const inner = join(dir, entries[0]!);
    if (existsSync(join(inner, "realm.json"))) return inner;
  }
  throw new ImportRefused("no realm.json in the export: this is not a Zulip export");
}

/** messages-000001.json, messages-000002.json, … in order. */
export function messageFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /^messages-\d+\.json$/.test(name))
    .sort((a, b) => Number(a.slice(9, -5)) - Number(b.slice(9, -5)));
}
