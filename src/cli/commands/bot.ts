import { Command } from "commander";
import type { App } from "../../app.js";
import { realmUrl } from "../../config.js";
import { bool, type UserRow } from "../../db/rows.js";
import { BOT_TYPE, SERVICE_INTERFACE } from "../../world/bots.js";
import type { RealmSnapshot } from "../../world/realm.js";
import { configFor, withApp } from "../context.js";
import { zuliprc } from "../next-steps.js";
import { CliError, formatTable, note, printJson, printLine } from "../output.js";
import { valueOrAsk, type PromptOptions } from "../prompts.js";
import { requireOperatorOwner, requireRealm, requireUserByEmail } from "../realm.js";

// Loaded when the command runs: a server never needs them (test/cli/lazy-loading.test.ts).
const botCreateActions = () => import("../../actions/bot-create.js");
const botsActions = () => import("../../actions/bots.js");
const botsLib = () => import("../../lib/bots.js");
const realmBotsQueries = () => import("../../queries/realm-bots.js");

/**
 * `chatd bot ...`: bots through the API's actions and rules. `create` acts as the bot's
 * owner would through POST /bots (by default the organization's first owner); the
 * other verbs act as the operator, with an administrator's reach over every bot.
 */

const TYPE_BY_NAME: Readonly<Record<string, number>> = {
  generic: BOT_TYPE.GENERIC,
  incoming: BOT_TYPE.INCOMING_WEBHOOK,
  "incoming-webhook": BOT_TYPE.INCOMING_WEBHOOK,
  outgoing: BOT_TYPE.OUTGOING_WEBHOOK,
  "outgoing-webhook": BOT_TYPE.OUTGOING_WEBHOOK,
  embedded: BOT_TYPE.EMBEDDED,
};
const TYPE_NAMES: Readonly<Record<number, string>> = {
  [BOT_TYPE.GENERIC]: "generic",
  [BOT_TYPE.INCOMING_WEBHOOK]: "incoming-webhook",
  [BOT_TYPE.OUTGOING_WEBHOOK]: "outgoing-webhook",
  [BOT_TYPE.EMBEDDED]: "embedded",
};
const INTERFACE_BY_NAME: Readonly<Record<string, number>> = {
  zulip: SERVICE_INTERFACE.GENERIC,
  slack: SERVICE_INTERFACE.SLACK,
};

/** A name from the table or its number (as POST /bots takes it). */
function parseChoice(table: Readonly<Record<string, number>>, flag: string, value: string): number {
  const key = value.trim().toLowerCase();
  if (/^\d+$/.test(key)) return Number(key);
  const found = table[key];
  if (found === undefined) {
    throw new CliError(`invalid ${flag} '${value}' (use one of: ${Object.keys(table).join(", ")})`);
  }
  return found;
}

interface BotOptions extends PromptOptions {
  email?: string;
  json?: boolean;
  site?: string;
}

const SITE_HELP = "the server's URL to put in the zuliprc (default: external_url, else http://host:port)";

/** The URL clients reach the server at, for the bot's zuliprc. */
const siteFor = (app: App, opts: BotOptions) => (opts.site ?? realmUrl(app.config)).replace(/\/+$/, "");

/** The bot named by --email (asked for on a TTY), as the operator sees the realm. */
async function botFromOptions(app: App, realm: RealmSnapshot, opts: BotOptions): Promise<UserRow> {
  const email = await valueOrAsk(opts, opts.email, "--email", "Bot's email");
  const bot = requireUserByEmail(app.config, realm, email.trim());
  if (!bool(bot.is_bot)) throw new CliError(`${email.trim()} is not a bot`);
  return bot;
}

interface CreateOptions extends BotOptions {
  shortName?: string;
  fullName?: string;
  type?: string;
  owner?: string;
  payloadUrl?: string;
  interface?: string;
  serviceName?: string;
}

const createCommand = new Command("create")
  .description("create a bot (as POST /bots does, with its rules) and print a zuliprc for it")
  .option("--short-name <name>", "the bot's email becomes <name>-bot@<the realm's host>")
  .option("--full-name <name>", "the bot's name, as people see it")
  .option("--type <type>", `generic (default), incoming-webhook, outgoing-webhook`)
  .option("--owner <email>", "who owns the bot (default: the organization's first owner)")
  .option("--payload-url <url>", "outgoing webhooks: the http(s) URL messages are POSTed to")
  .option("--interface <format>", "outgoing webhooks: zulip (default) or slack payloads")
  .option("--service-name <name>", "the service's name (default: the short name)")
  .option("--site <url>", SITE_HELP)
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print {user_id, email, full_name, bot_type, owner, api_key, site, zuliprc} as JSON")
  .action(async (opts: CreateOptions, cmd: Command) => {
    const botType = parseChoice(TYPE_BY_NAME, "--type", opts.type ?? "generic");
    const interfaceType = parseChoice(INTERFACE_BY_NAME, "--interface", opts.interface ?? "zulip");
    await withApp(configFor(cmd), async (app) => {
      const realm = await requireRealm(app);
      const owner =
        opts.owner === undefined
          ? requireOperatorOwner(realm)
          : requireUserByEmail(app.config, realm, opts.owner.trim());
      const shortName = await valueOrAsk(
        opts,
        opts.shortName,
        "--short-name",
        "Short name (email: <name>-bot@…)",
      );
      const fullName = await valueOrAsk(opts, opts.fullName, "--full-name", "Bot's full name");
      const payloadUrl =
        botType === BOT_TYPE.OUTGOING_WEBHOOK
          ? (await botsLib()).validateServiceUrl(
              await valueOrAsk(opts, opts.payloadUrl, "--payload-url", "Payload URL"),
              "payload_url",
            )
          : "";
      const { bot, apiKey } = await (
        await botCreateActions()
      ).checkCreateBot(
        app,
        owner,
        {
          fullName,
          shortName,
          botType,
          payloadUrl,
          interfaceType,
          serviceName: opts.serviceName,
          configData: {},
        },
        "chatd bot create",
      );
      const site = siteFor(app, opts);
      const rc = `${zuliprc(bot.email, apiKey, site)}\n`;
      if (opts.json) {
        printJson({
          user_id: bot.id,
          email: bot.email,
          full_name: bot.full_name,
          bot_type: bot.bot_type,
          owner: owner.email,
          api_key: apiKey,
          site,
          zuliprc: rc,
        });
        return;
      }
      process.stdout.write(rc);
      note(
        `Created ${TYPE_NAMES[botType]} bot ${bot.full_name} (${bot.email}, ID ${bot.id}), owned by ${owner.email}.\n` +
          "Save the lines above as the bot's zuliprc (chmod 600): its key is shown only this once.",
      );
    });
  });

/** Every bot of the realm as register's realm_bots describes bots (api_key is never kept). */
const botRecords = async (app: App, realm: RealmSnapshot) =>
  (await realmBotsQueries()).loadBotRecords(
    app,
    app.knex,
    realm.id,
    [...realm.users].filter((u) => bool(u.is_bot)),
  );

const listCommand = new Command("list")
  .description("list every bot of the organization, deactivated ones included")
  .option("--no-input", "never prompt (this command asks nothing)")
  .option("--json", "print the bots as register's realm_bots lists them")
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    await withApp(configFor(cmd), async (app) => {
      const realm = await requireRealm(app);
      const bots = await botRecords(app, realm);
      if (opts.json) return printJson(bots);
      const ownerEmail = (id: number | null | undefined) =>
        id === null || id === undefined ? "" : (realm.user(id)?.email ?? "");
      printLine(
        formatTable(
          ["ID", "EMAIL", "NAME", "TYPE", "OWNER", "ACTIVE"],
          bots.map((b) => [
            String(b.user_id),
            b.email,
            b.full_name,
            TYPE_NAMES[b.bot_type ?? 0] ?? String(b.bot_type),
            ownerEmail(b.owner_id),
            b.is_active ? "yes" : "no",
          ]),
        ),
      );
    });
  });

const summary = (bot: UserRow) => ({
  user_id: bot.id,
  email: bot.email,
  full_name: bot.full_name,
  is_active: bool(bot.is_active),
});

const deactivateCommand = new Command("deactivate")
  .description("deactivate a bot (as DELETE /bots/{id}); `chatd user reactivate` brings it back")
  .option("--email <email>", "the bot's email")
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print {user_id, email, full_name, is_active} as JSON")
  .action(async (opts: BotOptions, cmd: Command) => {
    await withApp(configFor(cmd), async (app) => {
      const realm = await requireRealm(app);
      const bot = await botFromOptions(app, realm, opts);
      await (await botsActions()).checkDeactivateBot(app, "operator", realm.id, bot.id);
      const after = (await app.realms.get(app.knex, realm.id)).user(bot.id)!;
      if (opts.json) printJson(summary(after));
      else printLine(`deactivated ${after.email}`);
    });
  });

interface ApiKeyOptions extends BotOptions {
  zuliprc?: boolean;
}

const apiKeyCommand = new Command("api-key")
  .description("replace a bot's API key (as POST /bots/{id}/api_key/regenerate) and print the new one")
  .option("--email <email>", "the bot's email")
  .option("--zuliprc", "print a whole zuliprc instead of the bare key")
  .option("--site <url>", SITE_HELP)
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print {user_id, email, api_key, site} as JSON")
  .action(async (opts: ApiKeyOptions, cmd: Command) => {
    await withApp(configFor(cmd), async (app) => {
      const realm = await requireRealm(app);
      const bot = await botFromOptions(app, realm, opts);
      const { apiKey } = await (
        await botsActions()
      ).checkRegenerateBotApiKey(app, "operator", realm.id, bot.id, "chatd bot api-key");
      const site = siteFor(app, opts);
      if (opts.json) printJson({ user_id: bot.id, email: bot.email, api_key: apiKey, site });
      else if (opts.zuliprc) printLine(zuliprc(bot.email, apiKey, site));
      else printLine(apiKey);
    });
  });

export const botCommand = new Command("bot")
  .description("administer bots")
  .addCommand(createCommand)
  .addCommand(listCommand)
  .addCommand(deactivateCommand)
  .addCommand(apiKeyCommand);
