import type { Knex } from "knex";

/**
 * SQLite's INTEGER is 64 bits; Knex's `integer` and `increments` are 32 bits on
 * PostgreSQL, where a larger value (Zulip's anchor 10^16, a client's huge ID) fails the
 * whole query instead of matching nothing. After migrations, every 32-bit integer column
 * and sequence becomes 64-bit, so both databases hold and compare the same numbers and
 * future migrations need not remember it. A no-op once done.
 */
export async function widenIntegers(knex: Knex): Promise<void> {
  const columns = (
    await knex.raw<{ rows: Array<{ table_name: string; column_name: string }> }>(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND data_type = 'integer' ORDER BY table_name, column_name`,
    )
  ).rows;
  const byTable = new Map<string, string[]>();
  for (const { table_name, column_name } of columns) {
    byTable.set(table_name, [...(byTable.get(table_name) ?? []), column_name]);
  }
  for (const [table, names] of byTable) {
    const changes = names.map((name) => `ALTER COLUMN "${name}" TYPE bigint`).join(", ");
    await knex.raw(`ALTER TABLE "${table}" ${changes}`);
  }
  const sequences = (
    await knex.raw<{ rows: Array<{ sequence_name: string }> }>(
      `SELECT sequence_name FROM information_schema.sequences
       WHERE sequence_schema = current_schema() AND data_type = 'integer'`,
    )
  ).rows;
  for (const { sequence_name } of sequences) await knex.raw(`ALTER SEQUENCE "${sequence_name}" AS bigint`);
}
