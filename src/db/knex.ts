import { join } from "node:path";
import knexFactory, { type Knex } from "knex";
import type { Config } from "../config.js";
import { applySqlitePragmas } from "./sqlite-pragmas.js";

export const DATABASE_FILE_NAME = "chatd.sqlite3";

export const databasePath = (config: Config) => join(config.data_dir, DATABASE_FILE_NAME);

export function createKnex(config: Config): Knex {
  return knexFactory({
    client: config.db_driver,
    connection: { filename: databasePath(config) },
    useNullAsDefault: true,
    // SQLite has one writer; one connection keeps transactions strictly serial.
    pool: { min: 1, max: 1, afterCreate: applySqlitePragmas(config) },
  });
}
