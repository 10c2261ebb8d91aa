import { Command } from "commander";
import { parseDatabaseUrl, redactDatabaseUrl } from "../../config.js";
import { createKnex, usesPostgres } from "../../db/knex.js";
import { migrateLatest } from "../../db/migrate.js";
import { lockDataDir } from "../../db/server-lock.js";
import { configFor, requireDatabase } from "../context.js";
import type { TableCheck } from "../db-copy/verify.js";
import { failureWhile } from "../failures.js";
import { CliError, CliFailure, note, printJson, printLine } from "../output.js";

// Loaded when the command runs: a server never needs them (test/cli/lazy-loading.test.ts).
const copyDbCopy = () => import("../db-copy/copy.js");
const progressDbCopy = () => import("../db-copy/progress.js");
const tablesDbCopy = () => import("../db-copy/tables.js");
const verifyDbCopy = () => import("../db-copy/verify.js");

function printChecks(checks: readonly TableCheck[]): void {
  const width = Math.max(5, ...checks.map((c) => c.table.length));
  printLine(`${"table".padEnd(width)}  ${"source".padStart(9)}  ${"target".padStart(9)}  sha-256`);
  for (const c of checks) {
    const sum = c.match ? `${c.source_sha256.slice(0, 16)} ok` : "MISMATCH";
    printLine(
      `${c.table.padEnd(width)}  ${String(c.source_rows).padStart(9)}  ${String(c.target_rows).padStart(9)}  ${sum}`,
    );
  }
}

const copyCommand = new Command("copy")
  .description(
    "copy the data directory's SQLite database into an empty PostgreSQL database, then verify every table (row count and SHA-256); the server must be stopped",
  )
  .requiredOption("--to <url>", "the target database, postgres://user:password@host:5432/chatd (empty)")
  .option("--no-input", "never prompt (this command asks nothing)")
  .option(
    "--json",
    "print {target, tables: [{table, source_rows, target_rows, source_sha256, target_sha256, match}], ok}",
  )
  .action(async (opts: { to: string; json?: boolean }, cmd: Command) => {
    const config = configFor(cmd);
    try {
      parseDatabaseUrl(opts.to);
    } catch (err) {
      throw new CliError(`--to ${(err as Error).message}`);
    }
    const shown = redactDatabaseUrl(opts.to);
    if (usesPostgres(config))
      throw new CliError("the data directory's database is already on PostgreSQL (database_url)");
    requireDatabase(config);
    const lock = await lockDataDir(config);
    if (!lock) throw new CliError(`the server is running on ${config.data_dir}: stop it before copying`);
    const source = createKnex(config);
    const target = createKnex({ ...config, database_url: opts.to });
    let checks: TableCheck[];
    try {
      const why = await (await tablesDbCopy()).whyNotEmpty(target);
      if (why !== null) throw new CliError(`${shown} is not empty (${why}): copy into an empty database`);
      await migrateLatest(source);
      await migrateLatest(target);
      const tables = await (await tablesDbCopy()).plannedTables(source, target);
      if (!opts.json) note(`copying ${config.data_dir} to ${shown}`);
      await (
        await copyDbCopy()
      ).copyTables(source, target, tables, (await progressDbCopy()).progressReporter());
      if (!opts.json) note("verifying");
      checks = await (await verifyDbCopy()).verifyTables(source, target, tables);
    } catch (err) {
      throw failureWhile(`copying to ${shown}`, err);
    } finally {
      await source.destroy();
      await target.destroy();
      await lock.release();
    }
    const ok = checks.every((c) => c.match);
    if (opts.json) printJson({ target: shown, tables: checks, ok });
    else printChecks(checks);
    if (!ok) {
      const differ = checks.filter((c) => !c.match).map((c) => c.table);
      throw new CliFailure(
        `verification failed: ${differ.join(", ")} differ between the source and ${shown}`,
      );
    }
    if (!opts.json)
      note(`done: set database_url to the target in settings.json (the uploads directory stays where it is)`);
  });

export const dbCommand = new Command("db").description("database maintenance").addCommand(copyCommand);
