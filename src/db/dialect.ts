import type { Knex } from "knex";

/** Whether a Knex (or one of its transactions) speaks to PostgreSQL rather than SQLite. */
export function isPostgres(knex: Knex | Knex.Transaction): boolean {
  return (knex.client as { config: Knex.Config }).config.client === "pg";
}
