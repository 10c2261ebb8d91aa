import { Command } from "commander";
import type { App } from "../../app.js";
import type { Config } from "../../config.js";
import { realmExists } from "../../actions/init.js";
import { configFor } from "../context.js";
import { CliError } from "../output.js";

interface ServeFlags {
  host?: string;
  port?: string;
  externalUrl?: string;
  logLevel?: string;
  workers?: string;
}

const serverFlagOverrides = (opts: ServeFlags) => ({
  host: opts.host,
  port: opts.port,
  external_url: opts.externalUrl,
  log_level: opts.logLevel,
});

const addServerFlags = (cmd: Command) =>
  cmd
    .option("--host <host>", "interface to listen on (default 127.0.0.1)")
    .option("--port <port>", "port to listen on (default 9991)")
    .option("--external-url <url>", "public URL of the server")
    .option("--log-level <level>", "debug, info, warn, error or silent")
    .option(
      "--workers <n>",
      "server processes on the port (default 1; see docs/operations.md, Several workers)",
    )
    .option("--no-input", "never prompt (this command asks nothing)");

/** `--workers N`: a whole number from 1 to 64. */
function parseWorkers(value: string | undefined): number {
  if (value === undefined) return 1;
  const workers = Number(value);
  if (!/^\d+$/.test(value) || workers < 1 || workers > 64) {
    throw new CliError(`--workers must be a whole number from 1 to 64, not ${JSON.stringify(value)}`);
  }
  return workers;
}

/**
 * A command that serves: the server flags, then `prepare` (a realm check, or the first
 * run's initialization) on the opened app before the server listens.
 */
export const serverCommand = (
  name: string,
  description: string,
  prepare: (app: App, config: Config) => Promise<void>,
) =>
  addServerFlags(new Command(name).description(description)).action(
    async (opts: ServeFlags, cmd: Command) => {
      const config = configFor(cmd, serverFlagOverrides(opts));
      const workers = parseWorkers(opts.workers);
      // Loaded here, not at the top: the HTTP server and every endpoint are not needed by
      // the admin commands, which then start faster (they often run beside a busy server).
      const { runServer } = await import("../serve-loop.js");
      await runServer(config, (app) => prepare(app, config), workers);
    },
  );

export const serveCommand = serverCommand(
  "serve",
  "apply pending migrations, then serve the web client at / and the API under /api/v1",
  async (app, config) => {
    if (!(await realmExists(app))) {
      throw new CliError(`no realm in ${config.data_dir}: run \`chatd init\` first (or \`npm start\`)`);
    }
  },
);
