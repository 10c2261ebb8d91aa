import { join } from "node:path";
import knexFactory, { type Knex } from "knex";
import type { Config } from "../config.js";
import { applySqlitePragmas } from "./sqlite-pragmas.js";

export const DATABASE_FILE_NAME = "chatd.sqlite3";

export const databasePath = (config: Config) => join(config.data_dir, DATABASE_FILE_NAME);

/**
 * A Knex instance on the database. Writes use one connection (SQLite has one writer,
 * and one connection keeps transactions strictly serial); reads use a pool of their own,
 * so in WAL mode they run beside a write transaction instead of queueing behind it.
 */
export function createKnex(config: Config, connections = 1): Knex {
  return knexFactory({
    client: config.db_driver,
    connection: { filename: databasePath(config) },
    useNullAsDefault: true,
    pool: { min: 1, max: connections, afterCreate: applySqlitePragmas(config) },
  });
}
