import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Knex } from "knex";
import { SETTINGS_FILE_NAME, type Config } from "../../../config.js";
import { createKnex, usesPostgres } from "../../../db/knex.js";
import { whyNotEmpty } from "../../db-copy/tables.js";
import { prepareDataDir } from "../../context.js";
import { ImportRefused } from "./refusal.js";

/**
 * An import creates an organization only where there is none: a data directory that does
 * not exist or is empty (its settings.json aside, which says where the database is), and
 * on PostgreSQL an empty database. Whatever the import made is removed if it fails.
 */
export interface Target {
  /** Removes what the import created, leaving the target as it was found. */
  undo(): Promise<void>;
}

const contents = (dir: string) =>
  existsSync(dir) ? readdirSync(dir).filter((n) => n !== SETTINGS_FILE_NAME) : [];

export async function prepareTarget(config: Config): Promise<Target> {
  const dir = config.data_dir;
  const existed = existsSync(dir);
  const found = contents(dir);
  if (found.length > 0) {
    throw new ImportRefused(
      `${dir} is not empty (it holds ${found.slice(0, 3).join(", ")}${found.length > 3 ? ", ..." : ""}): an import creates a new organization in an empty data directory only`,
    );
  }
  // A migrated database without rows is taken as empty: its tables, and the server secrets
  // the migrations seeded, are kept if the import fails (its rows were one transaction).
  let hadTables = false;
  if (usesPostgres(config)) {
    const knex = createKnex(config);
    try {
      hadTables = (await tablesOf(knex)).length > 0;
      const why = await whyNotEmpty(knex);
      if (why !== null)
        throw new ImportRefused(
          `the PostgreSQL database is not empty (${why}): an import needs an empty one`,
        );
    } finally {
      await knex.destroy();
    }
  }
  prepareDataDir(config);
  return {
    async undo() {
      if (usesPostgres(config) && !hadTables) await dropAllTables(config);
      if (!existed) rmSync(dir, { recursive: true, force: true });
      else for (const name of contents(dir)) rmSync(join(dir, name), { recursive: true, force: true });
    },
  };
}

async function tablesOf(knex: Knex): Promise<string[]> {
  const { rows } = await knex.raw<{ rows: Array<{ tablename: string }> }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
  );
  return rows.map((r) => r.tablename);
}

/** The database had no tables before the import: every table in it is the import's. */
async function dropAllTables(config: Config): Promise<void> {
  const knex = createKnex(config);
  try {
    for (const name of await tablesOf(knex))
      await knex.raw(`DROP TABLE IF EXISTS "${name.replace(/"/g, '""')}" CASCADE`);
  } finally {
    await knex.destroy();
  }
}
