import { Command } from "commander";
import { checkInitRealm, realmExists } from "../../actions/init.js";
import { generatePassword } from "../../lib/passwords.js";
import { configFor } from "../context.js";
import { chatdCommand, printFirstRun } from "../next-steps.js";
import { addServerFlags, parseWorkers, serverFlagOverrides, type ServeFlags } from "./serve.js";

/**
 * `npm start`: the zero-configuration path. On first run it initializes the data
 * directory with a generated owner password and prints the credentials once; every
 * run then serves.
 */
export const startCommand = addServerFlags(
  new Command("start").description("initialize on first run (printing the owner's credentials), then serve"),
).action(async (opts: ServeFlags, cmd: Command) => {
  const config = configFor(cmd, serverFlagOverrides(opts));
  const workers = parseWorkers(opts.workers);
  // Loaded here, not at the top: the HTTP server and every endpoint are not needed by
  // the admin commands, which then start faster (they often run beside a busy server).
  const { runServer } = await import("../serve-loop.js");
  await runServer(
    config,
    async (app) => {
      if (await realmExists(app)) return;
      const password = process.env.CHATD_OWNER_PASSWORD ?? generatePassword();
      const realmName = process.env.CHATD_REALM_NAME ?? "chatd";
      const result = await checkInitRealm(app, {
        realmName,
        ownerEmail: process.env.CHATD_OWNER_EMAIL ?? "owner@chatd.local",
        ownerName: process.env.CHATD_OWNER_NAME ?? "Owner",
        ownerPassword: password,
      });
      printFirstRun(realmName.trim(), result, { password, serving: true, command: chatdCommand(config) });
    },
    workers,
  );
});
