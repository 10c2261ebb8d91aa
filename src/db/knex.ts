import { join } from "node:path";
import knexFactory, { type Knex } from "knex";
import type { Config } from "../config.js";
import { pgConnection, WRITE_LOCK_KEY } from "./pg-connection.js";
import { preparePrivateFile } from "./private-files.js";
import { applySqlitePragmas } from "./sqlite-pragmas.js";

export const DATABASE_FILE_NAME = "chatd.sqlite3";

export const databasePath = (config: Config) => join(config.data_dir, DATABASE_FILE_NAME);

/** Knex's own warnings and pool errors: the errors reach the caller anyway, never print them twice. */
const QUIET: Knex.Config["log"] = { warn() {}, error() {}, deprecate() {}, debug() {} };

/** Whether the settings select PostgreSQL (database_url) rather than the SQLite file. */
export const usesPostgres = (config: Config) => config.database_url !== "";

function openKnex(config: Config, connections: number): Knex {
  if (usesPostgres(config)) {
    return knexFactory({
      client: "pg",
      connection: pgConnection(config),
      compileSqlOnError: false,
      log: QUIET,
      pool: { min: 0, max: connections },
    });
  }
  const path = databasePath(config);
  // SQLite creates the database (and its -wal and -shm files, which copy its mode) world-readable.
  for (const file of [path, `${path}-wal`, `${path}-shm`]) preparePrivateFile(file, file === path);
  return knexFactory({
    client: config.db_driver,
    connection: { filename: path },
    useNullAsDefault: true,
    // A failed statement's message then names its SQL with `?` placeholders, never the values.
    compileSqlOnError: false,
    log: QUIET,
    pool: { min: 1, max: connections, afterCreate: applySqlitePragmas(config) },
  });
}

/**
 * The writer: one connection (SQLite has one writer, and one connection keeps
 * transactions strictly serial) whose transactions begin IMMEDIATE; on PostgreSQL they
 * begin by taking the write lock (see beginWithWriteLock).
 */
export function createKnex(config: Config): Knex {
  const knex = openKnex(config, 1);
  return usesPostgres(config) ? beginWithWriteLock(knex) : beginImmediate(knex);
}

/** The read pool: in WAL mode its reads run beside a write transaction instead of queueing behind it. */
export function createReadPool(config: Config): Knex {
  return openKnex(config, config.db_read_connections);
}

/** The pg connection Knex hands to `begin`. */
interface PgQueryable {
  query(sql: string): Promise<unknown>;
}

interface KnexTransactionInternals {
  begin(conn: unknown): Promise<unknown>;
  query(conn: unknown, sql: string): Promise<unknown>;
}
interface KnexClientInternals {
  transaction: (
    this: KnexClientInternals,
    container: unknown,
    config: unknown,
    outerTx: unknown,
  ) => KnexTransactionInternals;
}

/**
 * Knex begins SQLite transactions DEFERRED: the write lock is taken by the first write,
 * and a transaction that read first then fails at once with SQLITE_BUSY when another
 * process (the server, an admin command) committed meanwhile; waiting cannot help it.
 * BEGIN IMMEDIATE takes the write lock up front and waits for it (busy_timeout), so
 * every transaction either starts with the lock or fails before doing anything. Knex
 * has no option for it: this replaces `begin` on each transaction this Knex opens
 * (nested ones go through the transaction's own client, and are savepoints).
 */
function beginImmediate(knex: Knex): Knex {
  const client = knex.client as unknown as KnexClientInternals;
  const open = client.transaction;
  client.transaction = function (this: KnexClientInternals, container, config, outerTx) {
    const trx = open.call(this, container, config, outerTx);
    trx.begin = (conn) => trx.query(conn, "BEGIN IMMEDIATE;");
    return trx;
  };
  return knex;
}

/**
 * PostgreSQL's counterpart of BEGIN IMMEDIATE: every write transaction first takes one
 * transaction-level advisory lock, released by its COMMIT or ROLLBACK. Writers (this
 * server, other servers on the same database, admin commands) then commit one at a time
 * in the order they got the lock, so message IDs, taken from the sequence inside the
 * lock, become visible in increasing order: no client can see message 11 (or its event)
 * while message 10 is still uncommitted. Group commit keeps this cheap under load.
 */
function beginWithWriteLock(knex: Knex): Knex {
  const client = knex.client as unknown as KnexClientInternals;
  const open = client.transaction;
  client.transaction = function (this: KnexClientInternals, container, config, outerTx) {
    const trx = open.call(this, container, config, outerTx);
    // Two statements, so that a lock wait that ran out (lock_timeout) leaves no aborted
    // transaction on the pooled connection: it is rolled back before the error goes on.
    trx.begin = async (conn) => {
      const client = conn as PgQueryable;
      await client.query("BEGIN");
      try {
        await client.query(`SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`);
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      }
    };
    return trx;
  };
  return knex;
}
