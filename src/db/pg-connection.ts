import type { Knex } from "knex";
import pg from "pg";
import type { Config } from "../config.js";

/** OIDs of int8 (count(*), bigint columns) and numeric (sum of bigints). */
const INT8 = 20;
const NUMERIC = 1700;

/**
 * pg returns int8 and numeric as strings, since they may exceed 2^53. Every such value
 * chatd stores (IDs, UNIX times, counts, byte sizes) fits: read them as numbers, as
 * SQLite gives them, so callers never see the difference. Scoped to chatd's connections.
 */
const types = {
  getTypeParser(oid: number): (value: string) => unknown {
    if (oid === INT8 || oid === NUMERIC) return Number;
    return pg.types.getTypeParser(oid) as (value: string) => unknown;
  },
};

/** Knex's connection settings for PostgreSQL: the URL, never logged (it may hold a password). */
export function pgConnection(config: Config): Knex.PgConnectionConfig {
  return { connectionString: config.database_url, types };
}

/**
 * Key of the transaction-level advisory lock every write transaction takes first (see
 * knex.ts): PostgreSQL then has one writer at a time, as SQLite does, across processes.
 */
export const WRITE_LOCK_KEY = 0x63686174; // "chat"
