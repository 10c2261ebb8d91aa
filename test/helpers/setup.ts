import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testConfig } from "../../src/config.js";
import { createKnex, databasePath } from "../../src/db/knex.js";
import { migrateLatest } from "../../src/db/migrate.js";
import { onPostgres, setUpPostgres, tearDownPostgres } from "./postgres.js";

/**
 * Root hooks: migrate one template database per run; every test server starts from a
 * copy of it (copying a closed file is far cheaper than migrating each time).
 */
let templateDir: string | null = null;

/** The whole suite can run on either driver: CHATD_TEST_DB_DRIVER=better-sqlite3 npm test. */
export function testDbDriver(): "sqlite3" | "better-sqlite3" {
  return process.env.CHATD_TEST_DB_DRIVER === "better-sqlite3" ? "better-sqlite3" : "sqlite3";
}

export function templateDatabase(): string {
  if (!templateDir) throw new Error("template database not built (is test/helpers/setup loaded?)");
  return databasePath(testConfig(templateDir));
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(60_000);
    if (onPostgres()) return setUpPostgres();
    templateDir = mkdtempSync(join(tmpdir(), "chatd-template-"));
    const knex = createKnex(testConfig(templateDir, { db_driver: testDbDriver() }));
    await migrateLatest(knex);
    // Fold the WAL into the main file so one file is a complete copy.
    await knex.raw("PRAGMA wal_checkpoint(TRUNCATE)");
    await knex.destroy();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    if (onPostgres()) await tearDownPostgres();
    if (templateDir) rmSync(templateDir, { recursive: true, force: true });
  },
};
