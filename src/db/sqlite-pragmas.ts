import type { Knex } from "knex";
import type { Config } from "../config.js";
import { isPostgres } from "./dialect.js";

/**
 * SQLite-only connection setup, in one place so a PostgreSQL deployment simply skips it.
 * WAL lets readers proceed during a write; synchronous=FULL makes every acknowledged
 * commit survive power loss; foreign keys are off in SQLite unless asked for.
 */
export function sqlitePragmas(config: Config): string[] {
  return [
    "PRAGMA journal_mode = WAL",
    `PRAGMA synchronous = ${config.sqlite_synchronous.toUpperCase()}`,
    "PRAGMA foreign_keys = ON",
    `PRAGMA busy_timeout = ${config.db_lock_timeout_ms}`,
    "PRAGMA temp_store = MEMORY",
    "PRAGMA cache_size = -65536",
  ];
}

/**
 * A bulk load (an import) reads each page it writes once: the 64 MB page cache a server
 * keeps for its reads only adds to its peak memory (65 MB of a 100,000-message import's
 * 300 MB, measured). Applies to the one connection of a createKnex() knex; no-op on
 * PostgreSQL, whose cache is the server's.
 */
export async function useSmallSqliteCache(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) await knex.raw("PRAGMA cache_size = -8192");
}

interface Sqlite3Connection {
  exec(sql: string, callback: (err: Error | null) => void): void;
}
interface BetterSqlite3Connection {
  exec(sql: string): unknown;
}

/** Knex pool hook: runs the pragmas on each new raw connection of either driver. */
export function applySqlitePragmas(config: Config) {
  const sql = sqlitePragmas(config).join(";\n");
  return (conn: unknown, done: (err: Error | null, conn: unknown) => void): void => {
    if (config.db_driver === "better-sqlite3") {
      try {
        (conn as BetterSqlite3Connection).exec(sql);
        done(null, conn);
      } catch (err) {
        done(err as Error, conn);
      }
      return;
    }
    (conn as Sqlite3Connection).exec(sql, (err) => done(err, conn));
  };
}
