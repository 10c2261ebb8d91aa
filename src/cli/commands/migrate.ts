import { Command } from "commander";
import { createKnex } from "../../db/knex.js";
import { migrateLatest, migrationStatus } from "../../db/migrate.js";
import { configFor, prepareDataDir } from "../context.js";
import { failureWhile } from "../failures.js";
import { printJson, printLine } from "../output.js";

export const migrateCommand = new Command("migrate")
  .description("apply pending database migrations (or show their status)")
  .option("--status", "list applied and pending migrations without applying any")
  .option("--no-input", "never prompt (this command asks nothing)")
  .option("--json", "machine-readable output")
  .action(async (opts: { status?: boolean; json?: boolean }, cmd: Command) => {
    const config = configFor(cmd);
    prepareDataDir(config);
    const knex = createKnex(config);
    try {
      if (opts.status) {
        const status = await migrationStatus(knex);
        if (opts.json) return printJson(status);
        for (const name of status.applied) printLine(`applied  ${name}`);
        for (const name of status.pending) printLine(`pending  ${name}`);
        return;
      }
      const applied = await migrateLatest(knex);
      if (opts.json) return printJson({ applied });
      printLine(applied.length ? `applied ${applied.length}: ${applied.join(", ")}` : "already up to date");
    } catch (err) {
      throw failureWhile("migrating the database", err);
    } finally {
      await knex.destroy();
    }
  });
