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

/**
 * Inserts rows (all with the same keys) in one multi-row statement and returns their new
 * IDs in row order. RETURNING is standard in SQLite 3.35+ and PostgreSQL; IDs of one
 * statement are assigned in VALUES order, so sorting restores the row order.
 */
export async function bulkInsertReturningIds(
  knex: Knex,
  table: string,
  rows: ReadonlyArray<Record<string, Knex.Value>>,
): Promise<number[]> {
  if (rows.length === 0) return [];
  const columns = Object.keys(rows[0]!);
  const placeholders = `(${columns.map(() => "?").join(", ")})`;
  const sql = `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${rows.map(() => placeholders).join(", ")} RETURNING id`;
  const result: unknown = await knex.raw(
    sql,
    rows.flatMap((row) => columns.map((column) => row[column]!)),
  );
  // sqlite3 and better-sqlite3 answer rows; PostgreSQL a result with `rows`.
  const returned = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{
    id: number;
  }>;
  return returned.map((row) => row.id).sort((a, b) => a - b);
}

/**
 * Inserts rows of integers (a send's user_messages rows: thousands per batch) with the
 * values written into the statement's text: binding each value costs the driver more
 * than SQLite spends parsing the digits. Every value must be a safe integer, so the text
 * holds nothing else; anything else is refused before a statement runs.
 */
export async function bulkInsertIntegers(
  knex: Knex,
  table: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly number[]>,
  chunk = 2000,
): Promise<void> {
  for (const row of rows) {
    // Indexed, not every(): every() skips an array's holes.
    if (row.length !== columns.length || columns.some((_, j) => !Number.isSafeInteger(row[j]))) {
      throw new Error(`bulkInsertIntegers into ${table}: a row is not ${columns.length} integers`);
    }
  }
  const head = `INSERT INTO ${table} (${columns.join(", ")}) VALUES `;
  for (let i = 0; i < rows.length; i += chunk) {
    const values = rows.slice(i, i + chunk).map((row) => `(${row.join(",")})`);
    try {
      await knex.raw(head + values.join(","));
    } catch (error) {
      // The driver's message quotes the statement, values included: keep only its code.
      const code = (error as { code?: unknown }).code;
      throw Object.assign(new Error(`insert into ${table} failed (${String(code)})`), { code });
    }
  }
}
