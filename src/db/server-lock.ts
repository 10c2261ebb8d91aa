import { join } from "node:path";
import knexFactory, { type Knex } from "knex";
import type { Config } from "../config.js";
import { sqliteCode } from "../logger.js";
import { preparePrivateFile } from "./private-files.js";

export const SERVER_LOCK_FILE_NAME = "chatd.lock";

export interface ServerLock {
  release(): Promise<void>;
}

/**
 * SQLite-only: one server per data directory. The server holds an exclusive lock on a
 * small lock database for as long as it runs; the operating system drops the lock when
 * the process ends, however it ends, so a crash leaves nothing stale behind. Admin
 * commands never take it: WAL lets them write beside the server. Returns null when
 * another process holds the lock.
 */
export async function lockDataDir(config: Config): Promise<ServerLock | null> {
  const path = join(config.data_dir, SERVER_LOCK_FILE_NAME);
  preparePrivateFile(path, true);
  const knex: Knex = knexFactory({
    client: config.db_driver,
    connection: { filename: path },
    useNullAsDefault: true,
    log: { warn() {}, error() {}, deprecate() {}, debug() {} },
    pool: { min: 1, max: 1 },
  });
  try {
    await knex.raw("PRAGMA busy_timeout = 0");
    await knex.raw("PRAGMA journal_mode = OFF"); // nothing is ever written: no journal file
    await knex.raw("PRAGMA locking_mode = EXCLUSIVE");
    await knex.raw("BEGIN EXCLUSIVE");
  } catch (err) {
    await knex.destroy();
    if (sqliteCode(err)?.startsWith("SQLITE_BUSY")) return null;
    throw err;
  }
  return { release: () => knex.destroy() };
}
