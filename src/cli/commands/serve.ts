import { mkdirSync } from "node:fs";
import { Command } from "commander";
import { realmExists } from "../../actions/init.js";
import { closeApp, createApp } from "../../server/create-app.js";
import { configFor } from "../context.js";
import { CliError } from "../output.js";
import { serveUntilSignal } from "../serve-loop.js";

export interface ServeFlags {
  host?: string;
  port?: string;
  externalUrl?: string;
  logLevel?: string;
}

export const serverFlagOverrides = (opts: ServeFlags) => ({
  host: opts.host,
  port: opts.port,
  external_url: opts.externalUrl,
  log_level: opts.logLevel,
});

export const addServerFlags = (cmd: Command) =>
  cmd
    .option("--host <host>", "interface to listen on (default 127.0.0.1)")
    .option("--port <port>", "port to listen on (default 9991)")
    .option("--external-url <url>", "public URL of the server")
    .option("--log-level <level>", "debug, info, warn, error or silent");

export const serveCommand = addServerFlags(
  new Command("serve").description("apply pending migrations, then serve the API under /api/v1"),
).action(async (opts: ServeFlags, cmd: Command) => {
  const config = configFor(cmd, serverFlagOverrides(opts));
  mkdirSync(config.data_dir, { recursive: true });
  const app = await createApp(config);
  if (!(await realmExists(app))) {
    await closeApp(app);
    throw new CliError(`no realm in ${config.data_dir}: run \`chatd init\` first (or \`npm start\`)`);
  }
  await serveUntilSignal(app);
});
