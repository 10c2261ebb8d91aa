import chalk from "chalk";
import { DEFAULT_CHANNEL, type InitResult } from "../actions/init.js";
import { resolveDataDir, type Config } from "../config.js";
import { printLine } from "./output.js";

/** How to run chatd on this data directory: `npx chatd`, with --data-dir unless it is found by default. */
export const chatdCommand = (config: Config) =>
  config.data_dir === resolveDataDir() ? "npx chatd" : `npx chatd --data-dir ${config.data_dir}`;

/** A zuliprc for the python bindings, zulip-send and bots. */
export const zuliprc = (email: string, apiKey: string, site: string) =>
  ["[api]", `email=${email}`, `key=${apiKey}`, `site=${site}`].join("\n");

const indent = (text: string, by: string) =>
  text
    .split("\n")
    .map((line) => `${by}${line}`)
    .join("\n");

export interface FirstRunOptions {
  /** The generated owner password (`chatd start`), shown once. */
  password?: string;
  /** The server is starting right after this (`chatd start`): no "start the server" step. */
  serving: boolean;
  /** How the next steps run chatd (default `npx chatd`). */
  command?: string;
}

/**
 * What `chatd init` and the first `chatd start` print: the owner's credentials (shown
 * once), then how to add users, get API keys and connect each client.
 */
export function printFirstRun(realmName: string, result: InitResult, options: FirstRunOptions): void {
  const url = result.realm_url;
  const chatd = options.command ?? "npx chatd";
  const bold = chalk.bold;
  printLine(
    chalk.green.bold(`Created the organization ${realmName}, with the channel #${DEFAULT_CHANNEL.name}.`),
  );
  printLine(`  ${bold("Realm URL:")} ${url}`);
  printLine(`  ${bold("Owner:    ")} ${result.email} (user ${result.user_id})`);
  if (options.password) printLine(`  ${bold("Password: ")} ${options.password}`);
  printLine(`  ${bold("API key:  ")} ${result.api_key}`);
  printLine(chalk.dim("  Shown once: only a hash is stored."));
  printLine();
  printLine(bold("Next steps"));
  if (!options.serving) printLine(`  Start the server:  ${chatd} serve`);
  printLine(`  Add a user:        ${chatd} user create --email alice@example.com --full-name "Alice"`);
  printLine(
    chalk.dim("                     (asks for a password; --role admin|moderator|guest for other roles)"),
  );
  printLine("  A user gets an API key with their email and password:");
  printLine(
    `    curl -sS ${url}/api/v1/fetch_api_key --data-urlencode username=alice@example.com --data-urlencode password=...`,
  );
  printLine(`  or, on this machine: ${chatd} api-key --email alice@example.com`);
  printLine("  Your zuliprc (save it as ~/.zuliprc for the python bindings, zulip-send and bots):");
  printLine(indent(zuliprc(result.email, result.api_key, url), "    "));
  printLine(`  Open ${url}/ in a browser and log in: that is the web client.`);
  printLine("  Other clients that work with this server:");
  printLine(`    - the Zulip mobile app and zulip-terminal: enter ${url}, then your email and password;`);
  printLine(
    `    - the python bindings (pip install zulip): zulip-send --stream ${DEFAULT_CHANNEL.name} --subject hello --message "Hi!";`,
  );
  printLine("    - bots (pip install zulip_bots): zulip-run-bot <bot> --config-file ~/.zuliprc;");
  printLine("    - zulip-js, and scripts written against Zulip's REST API.");
  printLine(`  ${url}/help/clients shows how to connect each of them.`);
}
