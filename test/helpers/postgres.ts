import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import pg from "pg";
import { testConfig, type Config } from "../../src/config.js";
import { createKnex } from "../../src/db/knex.js";
import { migrateLatest } from "../../src/db/migrate.js";
import { startCluster, type Cluster } from "./embedded-postgres.js";

/**
 * The suite on PostgreSQL (npm run test:postgres): the server in CHATD_TEST_DATABASE_URL
 * (any database on it; the run creates and drops its own), else a throwaway cluster
 * started for the run (embedded-postgres). Migrations run once into a template database;
 * every test server gets a copy (CREATE DATABASE ... TEMPLATE), dropped when it closes.
 */
export const onPostgres = () =>
  process.env.CHATD_TEST_POSTGRES === "1" || (process.env.CHATD_TEST_DATABASE_URL ?? "") !== "";

/** Skips the current suite on PostgreSQL, with the reason shown in the output. */
export function sqliteOnly(ctx: Mocha.Context, reason: string): void {
  if (!onPostgres()) return;
  if (ctx.test) ctx.test.title += ` (SQLite only: ${reason})`;
  ctx.skip();
}

/**
 * Skips the current test unless on PostgreSQL, with the reason shown in the output (in a
 * `before` hook: the whole suite, in its title).
 */
export function postgresOnly(ctx: Mocha.Context, reason: string): void {
  if (onPostgres()) return;
  const hook = (ctx.test as { type?: string } | undefined)?.type === "hook";
  const shown = hook ? ctx.test?.parent : ctx.test;
  if (shown) shown.title += ` (PostgreSQL only: ${reason})`;
  ctx.skip();
}

let cluster: Cluster | null = null;
/**
 * The run's server and database names. A test's child process (a server measured alone)
 * inherits them through the environment and names its own databases apart; the run
 * drops every database under its prefix at the end.
 */
const runPrefix = process.env.CHATD_TEST_PG_PREFIX ?? `chatd_t${process.pid}_`;
let serverUrl: URL | null = process.env.CHATD_TEST_PG_SERVER
  ? new URL(process.env.CHATD_TEST_PG_SERVER)
  : null;
const prefix = process.env.CHATD_TEST_PG_PREFIX ? `${runPrefix}c${process.pid}_` : runPrefix;
const template = `${runPrefix}template`;
let counter = 0;
const created = new Set<string>();
/** The database of each data directory a test used: a restart or a later command reuses it. */
const byDataDir = new Map<string, string>();

const urlFor = (database: string) => {
  const url = new URL(serverUrl!.toString());
  url.pathname = `/${database}`;
  return url.toString();
};

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlFor("postgres") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Starts (or connects to) the server and migrates the template database. */
export async function setUpPostgres(): Promise<void> {
  if (process.env.CHATD_TEST_DATABASE_URL) {
    serverUrl = new URL(process.env.CHATD_TEST_DATABASE_URL);
  } else {
    cluster = await startCluster({
      name: "chatd-pg",
      password: "chatd-test",
      // A throwaway cluster: durability is not what the tests measure.
      flags: ["fsync=off", "synchronous_commit=off", "max_connections=500"],
    });
    serverUrl = cluster.url;
  }
  process.env.CHATD_TEST_PG_SERVER = serverUrl.toString();
  process.env.CHATD_TEST_PG_PREFIX = runPrefix;
  await admin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${template}`);
    await c.query(
      `CREATE DATABASE ${template} ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`,
    );
  });
  const knex = createKnex(testConfig(tmpdir(), { database_url: urlFor(template) }));
  try {
    await migrateLatest(knex);
  } finally {
    await knex.destroy();
  }
}

export async function tearDownPostgres(): Promise<void> {
  if (serverUrl) {
    await admin(async (c) => {
      const { rows } = await c.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE starts_with(datname, $1) AND datname <> $2",
        [runPrefix, template],
      );
      for (const name of [...rows.map((r) => r.datname), template]) {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }
    }).catch(() => undefined);
  }
  created.clear();
  byDataDir.clear();
  await cluster?.stop();
  cluster = null;
}

/** A fresh migrated database; its URL. */
export async function createTestDatabase(): Promise<string> {
  const name = `${prefix}${++counter}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  created.add(name);
  return urlFor(name);
}

/** A fresh empty database (for `chatd init` and migration tests); its URL. */
export async function createEmptyDatabase(): Promise<string> {
  const name = `${prefix}${++counter}`;
  await admin((c) =>
    c.query(`CREATE DATABASE ${name} ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`),
  );
  created.add(name);
  return urlFor(name);
}

export async function dropTestDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!created.delete(name)) return;
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * A fresh migrated database for synchronous helpers (the CLI ones spawn chatd with
 * spawnSync): a child process creates it. Dropped with the run's others.
 */
export function createTestDatabaseSync(): string {
  const name = `${prefix}s${++counter}`;
  const script = `const pg = require("pg"); const c = new pg.Client({ connectionString: process.argv[1] });
    c.connect().then(() => c.query(process.argv[2])).then(() => c.end()).catch((e) => { console.error(e.message); process.exit(1); });`;
  const sql = `CREATE DATABASE ${name} TEMPLATE ${template}`;
  const res = spawnSync(process.execPath, ["-e", script, urlFor("postgres"), sql], { encoding: "utf8" });
  if (res.status !== 0) throw new Error(`creating a test database failed: ${res.stderr}`);
  created.add(name);
  return urlFor(name);
}

/** The database a test server over `dataDir` uses: the one it used before, else a fresh migrated one. */
export async function databaseForServer(dataDir: string): Promise<string> {
  const known = byDataDir.get(resolve(dataDir));
  if (known) return known;
  const url = await createTestDatabase();
  byDataDir.set(resolve(dataDir), url);
  return url;
}

/** Drops the database of a data directory the test is done with. */
export async function releaseDataDir(dataDir: string): Promise<void> {
  const url = byDataDir.get(resolve(dataDir));
  byDataDir.delete(resolve(dataDir));
  if (url) await dropTestDatabase(url);
}

/**
 * The environment a spawned `chatd` needs on PostgreSQL: CHATD_DATABASE_URL of its data
 * directory (from --data-dir, else CHATD_DATA_DIR, else ./data), as settings.json would
 * give an operator. The first time a fresh copy of the template: `chatd init` creates the
 * realm in it (migrating an empty database per command would make the CLI tests slow).
 */
export function cliDatabaseEnv(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
): NodeJS.ProcessEnv {
  if (!onPostgres() || env.CHATD_DATABASE_URL !== undefined) return {};
  const flag = args.indexOf("--data-dir");
  const given = flag >= 0 ? args[flag + 1] : (env.CHATD_DATA_DIR ?? process.env.CHATD_DATA_DIR);
  const dataDir = resolve(cwd ?? process.cwd(), given || "data");
  let url = byDataDir.get(dataDir);
  if (!url) {
    url = createTestDatabaseSync();
    byDataDir.set(dataDir, url);
  }
  return { CHATD_DATABASE_URL: url };
}

/** Settings for opening a data directory's database from the test process (its own database on PostgreSQL). */
export function dataDirConfig(dataDir: string): Config {
  const url = onPostgres() ? byDataDir.get(resolve(dataDir)) : undefined;
  return testConfig(dataDir, url ? { database_url: url } : {});
}
