import { Command } from "commander";
import { realmExists } from "../../actions/init.js";
import { configFor } from "../context.js";
import { CliError } from "../output.js";

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
    .option("--log-level <level>", "debug, info, warn, error or silent")
    .option("--no-input", "never prompt (this command asks nothing)");

export const serveCommand = addServerFlags(
  new Command("serve").description("apply pending migrations, then serve the API under /api/v1"),
).action(async (opts: ServeFlags, cmd: Command) => {
  const config = configFor(cmd, serverFlagOverrides(opts));
  // Loaded here, not at the top: the HTTP server and every endpoint are not needed by
  // the admin commands, which then start faster (they often run beside a busy server).
  const { runServer } = await import("../serve-loop.js");
  await runServer(config, async (app) => {
    if (!(await realmExists(app))) {
      throw new CliError(`no realm in ${config.data_dir}: run \`chatd init\` first (or \`npm start\`)`);
    }
  });
});
