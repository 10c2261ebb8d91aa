import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { Command } from "commander";
import { createKnex } from "../../db/knex.js";
import { backupDatabase } from "../../db/sqlite-backup.js";
import { configFor } from "../context.js";
import { CliError, printLine } from "../output.js";

export const backupCommand = new Command("backup")
  .description("write a consistent copy of the database to a file (safe while the server runs)")
  .requiredOption("--to <file>", "destination file (must not exist)")
  .action(async (opts: { to: string }, cmd: Command) => {
    const config = configFor(cmd);
    const target = resolve(opts.to);
    if (existsSync(target)) throw new CliError(`${target} already exists`);
    const knex = createKnex(config);
    try {
      await backupDatabase(knex, target);
    } finally {
      await knex.destroy();
    }
    printLine(target);
  });
