import { checkInitRealm, realmExists } from "../../actions/init.js";
import { generatePassword } from "../../lib/passwords.js";
import { chatdCommand, printFirstRun } from "../next-steps.js";
import { serverCommand } from "./serve.js";

/**
 * `npm start`: the zero-configuration path. On first run it initializes the data
 * directory with a generated owner password and prints the credentials once; every
 * run then serves.
 */
export const startCommand = serverCommand(
  "start",
  "initialize on first run (printing the owner's credentials), then serve",
  async (app, config) => {
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
);
