import type { Knex } from "knex";

/**
 * What `chatd db copy` copies: every SQLite table but SQLite's own, the migration
 * bookkeeping (the target's migrations write their own) and the FTS5 search index with its
 * shadow tables (contentless: rebuilt on PostgreSQL from the messages, see copy.ts).
 */
export const SKIPPED = /^(sqlite_|knex_migrations|message_search)/;

/** Tables a freshly migrated PostgreSQL database already fills (random secrets): replaced by the source's. */
const SEEDED = new Set(["server_secrets"]);

export interface CopiedTable {
  name: string;
  /** The SQLite columns, plus `rowid` where PostgreSQL keeps insertion order in an explicit column. */
  columns: string[];
  /** Whether `rowid` is SQLite's implicit rowid, copied into PostgreSQL's column of that name. */
  implicitRowid: boolean;
  /** The order rows are compared in: the primary key, else the insertion order (rowid). */
  order: string[];
  /** Of `order`, the text columns: compared by code point (COLLATE "C") on PostgreSQL, as SQLite does. */
  textOrder: Set<string>;
}

export const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function sqliteTables(source: Knex): Promise<string[]> {
  const rows = await source.raw<Array<{ name: string }>>(
    "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
  );
  return rows.map((r) => r.name).filter((name) => !SKIPPED.test(name));
}

async function pgColumns(target: Knex): Promise<Map<string, Map<string, string>>> {
  const { rows } = await target.raw<{
    rows: Array<{ table_name: string; column_name: string; data_type: string }>;
  }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const byTable = new Map<string, Map<string, string>>();
  for (const r of rows) {
    const columns = byTable.get(r.table_name) ?? new Map<string, string>();
    columns.set(r.column_name, r.data_type);
    byTable.set(r.table_name, columns);
  }
  return byTable;
}

async function pgPrimaryKeys(target: Knex): Promise<Map<string, string[]>> {
  const { rows } = await target.raw<{ rows: Array<{ table_name: string; column_name: string }> }>(
    `SELECT c.relname AS table_name, a.attname AS column_name
     FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
     WHERE i.indisprimary AND c.relnamespace = current_schema()::regnamespace
     ORDER BY c.relname, array_position(i.indkey::int2[], a.attnum)`,
  );
  const keys = new Map<string, string[]>();
  for (const r of rows) keys.set(r.table_name, [...(keys.get(r.table_name) ?? []), r.column_name]);
  return keys;
}

/** Parents before children (foreign keys on the target); a table's references to itself are left to ID order. */
async function dependencyOrder(target: Knex, names: readonly string[]): Promise<string[]> {
  const { rows } = await target.raw<{ rows: Array<{ child: string; parent: string }> }>(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
     JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
     WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace`,
  );
  const parents = new Map<string, Set<string>>(names.map((n) => [n, new Set<string>()]));
  for (const { child, parent } of rows) {
    if (child !== parent && parents.has(child) && parents.has(parent)) parents.get(child)!.add(parent);
  }
  const ordered: string[] = [];
  const placed = new Set<string>();
  while (ordered.length < names.length) {
    const ready = names.filter((n) => !placed.has(n) && [...parents.get(n)!].every((p) => placed.has(p)));
    if (ready.length === 0) throw new Error("the target's foreign keys form a cycle: cannot order the copy");
    for (const n of ready) {
      placed.add(n);
      ordered.push(n);
    }
  }
  return ordered;
}

/** The tables to copy, in dependency order; fails when the target's (migrated) schema lacks one. */
export async function plannedTables(source: Knex, target: Knex): Promise<CopiedTable[]> {
  const names = await sqliteTables(source);
  const targetColumns = await pgColumns(target);
  const keys = await pgPrimaryKeys(target);
  const tables = new Map<string, CopiedTable>();
  for (const name of names) {
    const onTarget = targetColumns.get(name);
    if (!onTarget) throw new Error(`the target has no table ${name} after migrating`);
    const info = await source.raw<Array<{ name: string }>>(`PRAGMA table_info(${quote(name)})`);
    const columns = info.map((c) => c.name);
    const missing = columns.find((c) => !onTarget.has(c));
    if (missing) throw new Error(`the target's table ${name} has no column ${missing} after migrating`);
    const implicitRowid = onTarget.has("rowid") && !columns.includes("rowid");
    if (implicitRowid) columns.push("rowid");
    const order = keys.get(name) ?? (onTarget.has("rowid") ? ["rowid"] : columns);
    const textOrder = new Set(order.filter((c) => /char|text/.test(onTarget.get(c) ?? "")));
    tables.set(name, { name, columns, implicitRowid, order, textOrder });
  }
  return (await dependencyOrder(target, names)).map((n) => tables.get(n)!);
}

/**
 * The target is empty when it has no tables, or only chatd's (migrated) with no rows
 * except the migration bookkeeping and what migrations seed. Returns why not, else null.
 */
export async function whyNotEmpty(target: Knex): Promise<string | null> {
  const { rows } = await target.raw<{ rows: Array<{ table_name: string }> }>(
    `SELECT table_name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const names = rows.map((r) => r.table_name);
  if (names.length === 0) return null;
  if (!names.includes("knex_migrations")) {
    return `it holds tables that are not chatd's (${names.slice(0, 3).join(", ")}${names.length > 3 ? ", ..." : ""})`;
  }
  for (const name of names) {
    if (name.startsWith("knex_migrations") || SEEDED.has(name)) continue;
    const { rows: found } = await target.raw<{ rows: unknown[] }>(`SELECT 1 FROM ${quote(name)} LIMIT 1`);
    if (found.length > 0) return `its table ${name} has rows`;
  }
  return null;
}
