import type { Knex } from "knex";

/** Inserts one row and returns its new ID (RETURNING works in SQLite 3.35+ and PostgreSQL). */
export async function insertReturningId(
  knex: Knex,
  table: string,
  row: Record<string, unknown>,
): Promise<number> {
  const rows: unknown = await knex(table).insert(row, ["id"]);
  const id = (rows as Array<{ id?: unknown }>)[0]?.id;
  if (typeof id !== "number") throw new Error(`insert into ${table} returned no id`);
  return id;
}

/**
 * Inserts many rows with multi-row VALUES statements (standard SQL, one statement per
 * `chunk` rows). Knex's own multi-row insert for SQLite is an INSERT ... SELECT ... UNION
 * ALL chain, limited to 500 rows and slower to parse.
 */
export async function bulkInsert(
  knex: Knex,
  table: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly Knex.Value[]>,
  chunk = 500,
): Promise<void> {
  const placeholders = `(${columns.map(() => "?").join(", ")})`;
  const head = `INSERT INTO ${table} (${columns.join(", ")}) VALUES `;
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk);
    await knex.raw(head + part.map(() => placeholders).join(", "), part.flat());
  }
}
