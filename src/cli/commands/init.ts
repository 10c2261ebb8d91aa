import { Command } from "commander";
import { checkInitRealm, realmExists } from "../../actions/init.js";
import { saveSetting } from "../../config.js";
import { validateEmail, validateFullName, validateNotEmpty, validatePassword } from "../validation.js";
import { configFor, withApp } from "../context.js";
import { CliError, printJson } from "../output.js";
import { chatdCommand, printFirstRun } from "../next-steps.js";
import { valueOrAsk } from "../prompts.js";

interface InitOptions {
  realmName?: string;
  ownerEmail?: string;
  ownerName?: string;
  ownerPassword?: string;
  externalUrl?: string;
  input: boolean;
  json?: boolean;
}

export const initCommand = new Command("init")
  .description(
    "create the data directory, the realm, its first owner and #general; print the owner's API key and next steps",
  )
  .option("--realm-name <name>", "organization name")
  .option("--owner-email <email>", "first owner's email (their login)")
  .option("--owner-name <name>", "first owner's full name")
  .option("--owner-password <password>", "first owner's password (at least 6 characters)")
  .option("--external-url <url>", "public URL of the server (saved to <data-dir>/settings.json)")
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print only {realm_url, email, user_id, api_key} as JSON")
  .action(async (opts: InitOptions, cmd: Command) => {
    const config = configFor(cmd, { external_url: opts.externalUrl });
    await withApp(
      config,
      async (app) => {
        if (await realmExists(app)) {
          throw new CliError(`a realm already exists in ${config.data_dir}; refusing to initialize over it`);
        }
        const ask = (
          value: string | undefined,
          flag: string,
          message: string,
          validate: (v: string) => string,
        ) => valueOrAsk(opts, value, flag, message, "input", validate);
        const input = {
          realmName: await ask(
            opts.realmName,
            "--realm-name",
            "Organization name",
            validateNotEmpty("Organization name"),
          ),
          ownerEmail: await ask(opts.ownerEmail, "--owner-email", "Owner's email", validateEmail),
          ownerName: await ask(opts.ownerName, "--owner-name", "Owner's full name", validateFullName),
          ownerPassword: await valueOrAsk(
            opts,
            opts.ownerPassword,
            "--owner-password",
            "Owner's password",
            "password",
            validatePassword,
          ),
        };
        const result = await checkInitRealm(app, input);
        if (opts.externalUrl !== undefined) saveSetting(config.data_dir, "external_url", opts.externalUrl);
        if (opts.json) printJson(result);
        else printFirstRun(input.realmName, result, { serving: false, command: chatdCommand(config) });
      },
      { doing: "initializing", create: true },
    );
  });
