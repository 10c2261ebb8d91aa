import { closeSync, constants, copyFileSync, existsSync, openSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { SETTINGS_FILE_NAME } from "../../config.js";
import { createKnex } from "../../db/knex.js";
import { preparePrivateFile, PRIVATE_FILE_MODE } from "../../db/private-files.js";
import { backupDatabase } from "../../db/sqlite-backup.js";
import { configFor, requireDatabase } from "../context.js";
import { failureWhile } from "../failures.js";
import { CliError, printJson, printLine } from "../output.js";

/** Where the copy of settings.json goes: beside the database copy, named after it. */
export const settingsBackupPath = (target: string) => `${target}.settings.json`;

export const backupCommand = new Command("backup")
  .description(
    "write a consistent copy of the database to FILE and of settings.json to FILE.settings.json (safe while the server runs)",
  )
  .requiredOption("--to <file>", "destination file (must not exist)")
  .option("--no-input", "never prompt (this command asks nothing)")
  .option("--json", "print {database, settings} (the files written; settings null without settings.json)")
  .action(async (opts: { to: string; json?: boolean }, cmd: Command) => {
    const config = configFor(cmd);
    requireDatabase(config);
    const target = resolve(opts.to);
    const settings = join(config.data_dir, SETTINGS_FILE_NAME);
    const settingsTarget = existsSync(settings) ? settingsBackupPath(target) : null;
    for (const file of [target, settingsTarget]) {
      if (file !== null && existsSync(file)) throw new CliError(`${file} already exists`);
    }
    try {
      // Created empty and private first (VACUUM INTO fills an empty file), so the copy is never readable by others.
      closeSync(openSync(target, "wx", PRIVATE_FILE_MODE));
      preparePrivateFile(target, false);
    } catch (err) {
      throw failureWhile(`creating ${target}`, err);
    }
    const knex = createKnex(config);
    try {
      await backupDatabase(knex, target);
      if (settingsTarget !== null) {
        copyFileSync(settings, settingsTarget, constants.COPYFILE_EXCL);
        preparePrivateFile(settingsTarget, false);
      }
    } catch (err) {
      rmSync(target, { force: true });
      throw failureWhile("backing up", err);
    } finally {
      await knex.destroy();
    }
    if (opts.json) return printJson({ database: target, settings: settingsTarget });
    printLine(target);
    if (settingsTarget !== null) printLine(settingsTarget);
  });
