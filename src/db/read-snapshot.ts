import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import knexFactory, { type Knex } from "knex";
import type { Config } from "../config.js";
import { createKnex, usesPostgres } from "./knex.js";
import { pgConnection } from "./pg-connection.js";
import { PRIVATE_DIR_MODE } from "./private-files.js";
import { backupDatabase } from "./sqlite-backup.js";
import { chmod } from "node:fs/promises";

/** A consistent, read-only view of the database for a long read (an export). */
export interface ReadSnapshot {
  knex: Knex;
  close(): Promise<void>;
}

/**
 * A view of the database as of one moment that a long read can take its time over while
 * the server goes on writing. SQLite: a VACUUM INTO copy in a private directory under
 * `workDir` (a read transaction held for minutes would keep the WAL from being
 * checkpointed), removed by `close`. PostgreSQL: a read-only REPEATABLE READ transaction.
 */
export async function openReadSnapshot(config: Config, workDir: string): Promise<ReadSnapshot> {
  if (usesPostgres(config)) {
    const knex = knexFactory({ client: "pg", connection: pgConnection(config), pool: { min: 0, max: 1 } });
    try {
      const trx = await knex.transaction({ isolationLevel: "repeatable read", readOnly: true });
      return {
        knex: trx,
        close: async () => {
          await trx.rollback().catch(() => undefined);
          await knex.destroy();
        },
      };
    } catch (err) {
      await knex.destroy();
      throw err;
    }
  }
  const dir = await mkdtemp(join(workDir, ".chatd-snapshot-"));
  await chmod(dir, PRIVATE_DIR_MODE);
  const file = join(dir, "snapshot.sqlite3");
  const writer = createKnex(config);
  try {
    await backupDatabase(writer, file);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  } finally {
    await writer.destroy();
  }
  const knex = knexFactory({
    client: config.db_driver,
    connection: { filename: file },
    useNullAsDefault: true,
    compileSqlOnError: false,
    pool: { min: 1, max: 1 },
  });
  return {
    knex,
    close: async () => {
      await knex.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
