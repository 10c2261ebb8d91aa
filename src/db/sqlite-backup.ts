import type { Knex } from "knex";

/**
 * SQLite-only online backup: VACUUM INTO writes a consistent, compacted snapshot while
 * readers and writers carry on (a PostgreSQL deployment uses pg_dump instead).
 */
export async function backupDatabase(knex: Knex, targetPath: string): Promise<void> {
  await knex.raw("VACUUM INTO ?", [targetPath]);
}
