import type { Knex } from "knex";
import { ImportRefused, at } from "./refusal.js";
import type { ZulipRecord } from "./export-files.js";

/**
 * A Zulip record becomes a chatd row by column name: chatd's columns are Zulip's model
 * fields (a foreign key `foo` in Zulip's model_to_dict is chatd's `foo_id`). A key
 * `chatd_<column>` (written by `chatd export` for what Zulip has no field for) wins, then
 * the table's explicit mapping, then the same name, then `<name>` for `<name>_id`. Values
 * are checked against the column's type: a wrong type refuses the archive, naming it.
 */

type Kind = "int" | "bool" | "float" | "text";

export interface Column {
  kind: Kind;
  nullable: boolean;
  hasDefault: boolean;
}

export type Columns = ReadonlyMap<string, Column>;

function kindOf(type: string): Kind {
  const t = type.toLowerCase();
  if (/bool|tinyint/.test(t)) return "bool";
  if (/int/.test(t)) return "int";
  if (/double|real|float|numeric/.test(t)) return "float";
  return "text";
}

/** A table's columns and their kinds, as the migrated database has them. */
export async function tableColumns(knex: Knex, name: string): Promise<Columns> {
  const info = await knex(name).columnInfo();
  const columns = new Map<string, Column>();
  for (const [column, c] of Object.entries(info)) {
    if (column === "rowid") continue;
    columns.set(column, { kind: kindOf(c.type), nullable: c.nullable, hasDefault: c.defaultValue !== null });
  }
  return columns;
}

/** Where the value being converted comes from, for the refusal's message. */
export interface Source {
  file: string;
  table: string;
  index: number;
}

const wrongType = (src: Source, field: string, expected: string) =>
  new ImportRefused(`${at(src.file, src.table, src.index, field)} is not ${expected}`);

/** A value checked and converted for a column; undefined leaves the column to its default. */
export function convert(value: unknown, column: Column, src: Source, field: string): Knex.Value | undefined {
  if (value === undefined) return undefined;
  if (value === null) {
    if (column.nullable) return null;
    if (column.hasDefault) return undefined;
    throw wrongType(src, field, "allowed to be null");
  }
  switch (column.kind) {
    case "int":
      if (typeof value === "boolean") return value ? 1 : 0;
      // Zulip writes times as float seconds; chatd keeps whole seconds.
      if (typeof value === "number" && Number.isFinite(value)) return Math.floor(value);
      throw wrongType(src, field, "a number");
    case "float":
      if (typeof value === "number" && Number.isFinite(value)) return value;
      throw wrongType(src, field, "a number");
    case "bool":
      if (typeof value === "boolean") return value;
      if (value === 0 || value === 1) return value === 1;
      throw wrongType(src, field, "a boolean");
    case "text":
      if (typeof value === "string") return value;
      // chatd's JSON columns travel as JSON values under their chatd_ keys.
      if (field.startsWith("chatd_") && typeof value === "object") return JSON.stringify(value);
      throw wrongType(src, field, "a string");
  }
}

/** How one chatd column is filled: a Zulip key, or a function of the record. */
export type FieldSource = string | ((record: ZulipRecord) => unknown);

/** The chatd row for a Zulip record (columns with no value are left out: their defaults apply). */
export function toRow(
  record: ZulipRecord,
  columns: Columns,
  src: Source,
  mapping: Readonly<Record<string, FieldSource>> = {},
): Record<string, Knex.Value> {
  const row: Record<string, Knex.Value> = {};
  for (const [name, column] of columns) {
    let field = name;
    let value: unknown;
    const mapped = mapping[name];
    if (`chatd_${name}` in record) {
      field = `chatd_${name}`;
      value = record[field];
    } else if (mapped !== undefined) {
      if (typeof mapped === "function") value = mapped(record);
      else value = record[(field = mapped)];
    } else if (name in record) {
      value = record[name];
    } else if (name.endsWith("_id") && name.slice(0, -3) in record) {
      field = name.slice(0, -3);
      value = record[field];
    }
    const converted = convert(value, column, src, field);
    if (converted !== undefined) row[name] = converted;
  }
  return row;
}

/** A required integer id of a record (its own id, or a reference). */
export function requireInt(record: ZulipRecord, field: string, src: Source): number {
  const value = record[field];
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new ImportRefused(`${at(src.file, src.table, src.index, field)} is not an integer id`);
  }
  return value;
}

/** A required string of a record. */
export function requireString(record: ZulipRecord, field: string, src: Source): string {
  const value = record[field];
  if (typeof value !== "string") throw wrongType(src, field, "a string");
  return value;
}
