import { createHash } from "node:crypto";
import type { Knex } from "knex";
import { isPostgres } from "../../db/dialect.js";
import { quote, type CopiedTable } from "./tables.js";

export interface TableCheck {
  table: string;
  source_rows: number;
  target_rows: number;
  source_sha256: string;
  target_sha256: string;
  match: boolean;
}

/** Rows per read: fewer statements (a 100,000-message installation has millions of flag rows), bounded memory. */
const BATCH = 5000;

/** One value as both databases give it: booleans are 1/0 and int8 a number on both (pg-connection.ts). */
function normalized(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === "bigint") return value.toString();
  if (Buffer.isBuffer(value)) return { hex: value.toString("hex") };
  return value;
}

/**
 * Row count and SHA-256 over the rows in key order, read a batch at a time (keyset on
 * the key: a row-value comparison both databases understand). Text keys compare by code
 * point on PostgreSQL, as SQLite's BINARY collation does, whatever the database's collation.
 */
export async function tableChecksum(
  knex: Knex,
  table: CopiedTable,
): Promise<{ rows: number; sha256: string }> {
  const pg = isPostgres(knex);
  const sqliteRowid = !pg && table.implicitRowid;
  const column = (c: string) => (c === "rowid" && sqliteRowid ? "rowid" : quote(c));
  const keyed = (c: string) => (pg && table.textOrder.has(c) ? `${quote(c)} COLLATE "C"` : column(c));
  const select = table.columns.map((c) => `${column(c)} AS ${quote(c)}`).join(", ");
  const key = `(${table.order.map(keyed).join(", ")})`;
  const orderBy = table.order.map(keyed).join(", ");
  const hash = createHash("sha256");
  let rows = 0;
  let after: Knex.Value[] | null = null;
  for (;;) {
    const where: string = after ? `WHERE ${key} > (${after.map(() => "?").join(", ")})` : "";
    const result: unknown = await knex.raw(
      `SELECT ${select} FROM ${quote(table.name)} ${where} ORDER BY ${orderBy} LIMIT ${BATCH}`,
      after ?? [],
    );
    const batch = (pg ? (result as { rows: unknown[] }).rows : result) as Array<Record<string, unknown>>;
    for (const row of batch) hash.update(`${JSON.stringify(table.columns.map((c) => normalized(row[c])))}\n`);
    rows += batch.length;
    if (batch.length < BATCH) break;
    const last = batch[batch.length - 1]!;
    after = table.order.map((c) => last[c] as Knex.Value);
  }
  return { rows, sha256: hash.digest("hex") };
}

export async function verifyTables(
  source: Knex,
  target: Knex,
  tables: readonly CopiedTable[],
): Promise<TableCheck[]> {
  const checks: TableCheck[] = [];
  for (const table of tables) {
    const [from, to] = [await tableChecksum(source, table), await tableChecksum(target, table)];
    checks.push({
      table: table.name,
      source_rows: from.rows,
      target_rows: to.rows,
      source_sha256: from.sha256,
      target_sha256: to.sha256,
      match: from.rows === to.rows && from.sha256 === to.sha256,
    });
  }
  return checks;
}
