import type { Command } from "commander";
import { closeApp, createApp } from "../server/create-app.js";
import { type App } from "../app.js";
import { loadConfig, type Config, type SettingKey } from "../config.js";
import { createLogger } from "../logger.js";

export interface GlobalOptions {
  dataDir?: string;
}

/** Reads settings for a command: files, environment, then the command's own flags. */
export function configFor(cmd: Command, overrides: Partial<Record<SettingKey, unknown>> = {}): Config {
  const { dataDir } = cmd.optsWithGlobals<GlobalOptions>();
  return loadConfig({ dataDir, overrides });
}

/** Runs an admin command against the database (migrated first), then closes it. */
export async function withApp<T>(config: Config, fn: (app: App) => Promise<T>): Promise<T> {
  const app = await createApp(config, {
    logger: createLogger(config.log_level === "debug" ? "debug" : "warn"),
    outbox: true,
  });
  try {
    return await fn(app);
  } finally {
    await closeApp(app);
  }
}
