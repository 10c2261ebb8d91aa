import type { Knex } from "knex";
import { createRequire } from "node:module";
import type pgModule from "pg";
import type { Config } from "../config.js";

/** OIDs of int8 (count(*), bigint columns), numeric (sum of bigints) and bool. */
const INT8 = 20;
const NUMERIC = 1700;
const BOOL = 16;

/**
 * Values read as SQLite gives them, so no caller sees which database answered. pg
 * returns int8 and numeric as strings, since they may exceed 2^53; every such value chatd
 * stores (IDs, UNIX times, counts, byte sizes) fits a number. Booleans come back as 1/0
 * (SQLite has no boolean type; PostgreSQL accepts 1/0 for a boolean parameter too).
 * Scoped to chatd's connections, not set on the pg module.
 */
/** pg is loaded when a PostgreSQL connection first reads a value: a SQLite server never holds it. */
let pg: typeof pgModule | null = null;
const loadPg = () => (pg ??= createRequire(import.meta.url)("pg") as typeof pgModule);

const types = {
  getTypeParser(oid: number): (value: string) => unknown {
    if (oid === INT8 || oid === NUMERIC) return Number;
    if (oid === BOOL) return (value) => (value === "t" ? 1 : 0);
    return loadPg().types.getTypeParser(oid) as (value: string) => unknown;
  },
};

/**
 * Knex's connection settings for PostgreSQL: the URL, never logged (it may hold a password).
 * A writer waits for the write lock (or any lock) at most db_lock_timeout_ms, as on
 * SQLite, then fails with SQLSTATE 55P03, which callers retry as they retry SQLITE_BUSY.
 * PostgreSQL's 0 means "wait forever": SQLite's 0 ("do not wait") becomes 1 ms.
 */
export function pgConnection(config: Config): Knex.PgConnectionConfig {
  const lockTimeout = Math.max(1, config.db_lock_timeout_ms);
  return {
    connectionString: config.database_url,
    types,
    lock_timeout: lockTimeout,
  } as Knex.PgConnectionConfig;
}

/**
 * Key of the transaction-level advisory lock every write transaction takes first (see
 * knex.ts): PostgreSQL then has one writer at a time, as SQLite does, across processes.
 */
export const WRITE_LOCK_KEY = 0x63686174; // "chat"
