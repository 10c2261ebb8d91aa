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
