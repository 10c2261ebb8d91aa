import type { Knex } from "knex";
import { MIGRATIONS, type Migration } from "../../migrations/index.js";
import { isPostgres } from "./dialect.js";
import { widenIntegers } from "./pg-integers.js";

/** Knex reads migrations from the static list, so the build needs no directory scan. */
const source: Knex.MigrationSource<readonly [string, Migration]> = {
  getMigrations: () => Promise.resolve([...MIGRATIONS]),
  getMigrationName: ([name]) => name,
  getMigration: ([, migration]) => Promise.resolve(migration),
};

const config: Knex.MigratorConfig = { migrationSource: source, tableName: "knex_migrations" };

/**
 * Applies pending migrations; returns the names applied. Knex's migrator takes its lock
 * (a write) even when nothing is pending: checking first keeps every admin command
 * from writing, and so from waiting on a busy server, just to start.
 */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  if ((await migrationStatus(knex)).pending.length === 0) return [];
  const [, applied] = (await knex.migrate.latest(config)) as [number, string[]];
  if (isPostgres(knex)) await widenIntegers(knex);
  return applied;
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
}

export async function migrationStatus(knex: Knex): Promise<MigrationStatus> {
  const [completed, pending] = (await knex.migrate.list(config)) as [
    Array<{ name: string }>,
    Array<readonly [string, Migration]>,
  ];
  return { applied: completed.map((m) => m.name), pending: pending.map(([name]) => name) };
}
