import { closeSync, constants, copyFileSync, existsSync, openSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { SETTINGS_FILE_NAME } from "../../config.js";
import { createKnex, usesPostgres } from "../../db/knex.js";
import { preparePrivateFile, PRIVATE_FILE_MODE } from "../../db/private-files.js";
import { uploadsDir } from "../../lib/storage/paths.js";
import { configFor, requireDatabase, withApp } from "../context.js";
import { requireRealm } from "../realm.js";
import { failureWhile } from "../failures.js";
import { CliError, printJson, printLine } from "../output.js";

// Loaded when the command runs: a server never needs them (test/cli/lazy-loading.test.ts).
const sqliteBackupDb = () => import("../../db/sqlite-backup.js");
const localStorage = () => import("../../lib/storage/local.js");
const backupUploads = () => import("../../lib/uploads/backup.js");

/** Where the copy of settings.json goes: beside the database copy, named after it. */
export const settingsBackupPath = (target: string) => `${target}.settings.json`;
/** Where the stored files the database copy names go (uploads, thumbnails, avatars). */
export const uploadsBackupPath = (target: string) => `${target}.uploads`;

/**
 * The database snapshot, settings.json, then the stored files the snapshot names. While
 * it runs the server deletes no stored file (the store's deletion pause), so every file
 * the snapshot names is still there to copy.
 */
export const backupCommand = new Command("backup")
  .description(
    "write a consistent copy of the database to FILE, of settings.json to FILE.settings.json and of the uploaded files it names to FILE.uploads/ (safe while the server runs)",
  )
  .requiredOption("--to <file>", "destination file (must not exist)")
  .option("--no-input", "never prompt (this command asks nothing)")
  .option(
    "--json",
    "print {database, settings[, uploads]} (the files written; settings null without settings.json; uploads only when files were copied)",
  )
  .action(async (opts: { to: string; json?: boolean }, cmd: Command) => {
    const config = configFor(cmd);
    if (usesPostgres(config)) {
      // Without a realm, the same answer as on SQLite: run init first.
      await withApp(config, requireRealm, { doing: "backing up" });
      throw new CliError(
        "the database is on PostgreSQL (database_url): back it up with pg_dump, and copy the data directory's uploads and settings.json",
      );
    }
    requireDatabase(config);
    const target = resolve(opts.to);
    const settings = join(config.data_dir, SETTINGS_FILE_NAME);
    const settingsTarget = existsSync(settings) ? settingsBackupPath(target) : null;
    const uploadsTarget = uploadsBackupPath(target);
    for (const file of [target, settingsTarget, uploadsTarget]) {
      if (file !== null && existsSync(file)) throw new CliError(`${file} already exists`);
    }
    try {
      // Created empty and private first (VACUUM INTO fills an empty file), so the copy is never readable by others.
      closeSync(openSync(target, "wx", PRIVATE_FILE_MODE));
      preparePrivateFile(target, false);
    } catch (err) {
      throw failureWhile(`creating ${target}`, err);
    }
    const store = existsSync(uploadsDir(config))
      ? new (await localStorage()).LocalBlobStore(uploadsDir(config))
      : null;
    const knex = createKnex(config);
    let copied = 0;
    const resume = store ? await store.pauseDeletions() : null;
    try {
      await (await sqliteBackupDb()).backupDatabase(knex, target);
      if (settingsTarget !== null) {
        copyFileSync(settings, settingsTarget, constants.COPYFILE_EXCL);
        preparePrivateFile(settingsTarget, false);
      }
      if (store) {
        const result = await (await backupUploads()).backupBlobs(knex, store, target, uploadsTarget);
        copied = result.copied;
        if (result.missing.length > 0) {
          process.stderr.write(
            `warning: ${result.missing.length} stored file(s) were deleted as the backup began\n`,
          );
        }
      }
    } catch (err) {
      rmSync(target, { force: true });
      rmSync(uploadsTarget, { recursive: true, force: true });
      throw failureWhile("backing up", err);
    } finally {
      await resume?.();
      await knex.destroy();
    }
    const uploads = copied > 0 ? uploadsTarget : null;
    if (opts.json) {
      return printJson({ database: target, settings: settingsTarget, ...(uploads ? { uploads } : {}) });
    }
    printLine(target);
    if (settingsTarget !== null) printLine(settingsTarget);
    if (uploads !== null) printLine(uploads);
  });
