import { mkdirSync } from "node:fs";
import { Command } from "commander";
import { checkInitRealm, realmExists } from "../../actions/init.js";
import { closeApp, createApp } from "../../server/create-app.js";
import { generatePassword } from "../../lib/passwords.js";
import { configFor } from "../context.js";
import { printFirstRun } from "../next-steps.js";
import { serveUntilSignal } from "../serve-loop.js";
import { addServerFlags, serverFlagOverrides, type ServeFlags } from "./serve.js";

/**
 * `npm start`: the zero-configuration path. On first run it initializes the data
 * directory with a generated owner password and prints the credentials once; every
 * run then serves.
 */
export const startCommand = addServerFlags(
  new Command("start").description("initialize on first run (printing the owner's credentials), then serve"),
).action(async (opts: ServeFlags, cmd: Command) => {
  const config = configFor(cmd, serverFlagOverrides(opts));
  mkdirSync(config.data_dir, { recursive: true });
  const app = await createApp(config);
  try {
    if (!(await realmExists(app))) {
      const password = process.env.CHATD_OWNER_PASSWORD ?? generatePassword();
      const realmName = process.env.CHATD_REALM_NAME ?? "chatd";
      const result = await checkInitRealm(app, {
        realmName,
        ownerEmail: process.env.CHATD_OWNER_EMAIL ?? "owner@chatd.local",
        ownerName: process.env.CHATD_OWNER_NAME ?? "Owner",
        ownerPassword: password,
      });
      printFirstRun(realmName.trim(), result, { password, serving: true });
    }
  } catch (err) {
    await closeApp(app);
    throw err;
  }
  await serveUntilSignal(app);
});
