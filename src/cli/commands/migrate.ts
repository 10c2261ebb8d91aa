import { mkdirSync } from "node:fs";
import { Command } from "commander";
import { createKnex } from "../../db/knex.js";
import { migrateLatest, migrationStatus } from "../../db/migrate.js";
import { configFor } from "../context.js";
import { printJson, printLine } from "../output.js";

export const migrateCommand = new Command("migrate")
  .description("apply pending database migrations (or show their status)")
  .option("--status", "list applied and pending migrations without applying any")
  .option("--json", "machine-readable output")
  .action(async (opts: { status?: boolean; json?: boolean }, cmd: Command) => {
    const config = configFor(cmd);
    mkdirSync(config.data_dir, { recursive: true });
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
    } finally {
      await knex.destroy();
    }
  });
