import { accessSync, constants, existsSync } from "node:fs";
import type { Command } from "commander";
import { closeApp, createApp } from "../server/create-app.js";
import { type App } from "../app.js";
import { loadConfig, type Config, type SettingKey } from "../config.js";
import { databasePath, usesPostgres } from "../db/knex.js";
import { ensurePrivateDir } from "../db/private-files.js";
import { createLogger } from "../logger.js";
import { failureWhile, systemFailure } from "./failures.js";
import { CliError, CliFailure, note, setShowStacks } from "./output.js";

export interface GlobalOptions {
  dataDir?: string;
}

/** Reads settings for a command: files, environment, then the command's own flags. */
export function configFor(cmd: Command, overrides: Partial<Record<SettingKey, unknown>> = {}): Config {
  const { dataDir } = cmd.optsWithGlobals<GlobalOptions>();
  const config = loadConfig({ dataDir, overrides });
  setShowStacks(config.log_level === "debug");
  return config;
}

/** The data directory has no database: the command runs from the wrong place, or before init. */
export function noRealm(config: Config): CliError {
  return new CliError(
    `no realm in ${config.data_dir}: run \`chatd init\` first (the data directory is --data-dir, else $CHATD_DATA_DIR, else ./data in the current directory)`,
  );
}

/**
 * Fails with noRealm() unless the data directory has a database. A PostgreSQL database
 * exists before `chatd init`: there the command finds no realm in it (cli/realm.ts),
 * unless the data directory (uploads, settings) is missing too, which `chatd init` or
 * `chatd serve` creates: a command run in the wrong place then creates nothing.
 */
export function requireDatabase(config: Config): void {
  if (!existsSync(usesPostgres(config) ? config.data_dir : databasePath(config))) throw noRealm(config);
}

/** Creates the data directory (private) if needed, and fails clearly unless chatd can write in it. */
export function prepareDataDir(config: Config): void {
  const dir = config.data_dir;
  try {
    ensurePrivateDir(dir);
  } catch (err) {
    throw new CliFailure(`cannot create the data directory ${dir}: ${systemFailure(err) ?? String(err)}`, {
      cause: err,
    });
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new CliFailure(`the data directory ${dir} is not writable: ${systemFailure(err) ?? String(err)}`, {
      cause: err,
    });
  }
}

/** A transaction that cannot get the write lock within the busy timeout starts over this often. */
const BUSY_RETRIES = 2;

export interface WithAppOptions {
  /** What the command does, for failure messages: "creating a user". */
  doing?: string;
  /** Create the data directory and the database (init); other commands need them to exist. */
  create?: boolean;
}

/** Runs an admin command against the database (migrated first), then closes it. */
export async function withApp<T>(
  config: Config,
  fn: (app: App) => Promise<T>,
  options: WithAppOptions = {},
): Promise<T> {
  const doing = options.doing ?? "running the command";
  let app: App;
  try {
    if (options.create) prepareDataDir(config);
    else requireDatabase(config);
    app = await createApp(config, {
      logger: createLogger(config.log_level === "debug" ? "debug" : "warn"),
      outbox: true,
      busyRetry: {
        retries: BUSY_RETRIES,
        onRetry: (attempt) =>
          note(`database busy (the server is writing); trying again (${attempt}/${BUSY_RETRIES})`),
      },
    });
  } catch (err) {
    throw failureWhile(doing, err);
  }
  try {
    return await fn(app);
  } catch (err) {
    throw failureWhile(doing, err);
  } finally {
    await closeApp(app);
  }
}
