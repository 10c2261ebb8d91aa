import { readFileSync } from "node:fs";
import { Command } from "commander";
import type { Config } from "../../config.js";
import type { UserRow } from "../../db/rows.js";
import type { RealmSnapshot } from "../../world/realm.js";
import { configFor, withApp } from "../context.js";
import { CliError, printJson, printLine } from "../output.js";
import { requireRealm, requireUserByEmail } from "../realm.js";
import { NOTIFICATION_BOT } from "../../actions/system-bots.js";

// Loaded when the command runs: a server never needs them (test/cli/lazy-loading.test.ts).
const messageSendActions = () => import("../../actions/message-send.js");

interface SendOptions {
  channel?: string;
  topic?: string;
  to?: string;
  content: string;
  sender?: string;
  json?: boolean;
}

/** The announcing user: the given one, else the realm's Notification Bot. */
function senderFor(config: Config, realm: RealmSnapshot, email: string | undefined): UserRow {
  if (email !== undefined) return requireUserByEmail(config, realm, email);
  // Not the Welcome Bot, though it may have been made first.
  const bot = realm.systemBots.find((b) => b.email.startsWith(NOTIFICATION_BOT.localPart));
  if (!bot) throw new CliError("this realm has no Notification Bot; pass --sender");
  return bot;
}

const sendCommand = new Command("send")
  .description("send a message (e.g. an announcement) to a channel topic or as a direct message")
  .option("--channel <name>", "the channel to post in (with --topic)")
  .option("--topic <topic>", 'the topic ("" for the empty topic)')
  .option("--to <emails>", "comma-separated recipients of a direct message (instead of --channel)")
  .requiredOption("--content <text>", "the message, in Zulip Markdown; - reads it from standard input")
  .option("--sender <email>", "who sends it (default: the Notification Bot)")
  .option("--no-input", "never prompt (this command asks nothing)")
  .option("--json", "print {id} as JSON")
  .action(async (opts: SendOptions, cmd: Command) => {
    if ((opts.channel === undefined) === (opts.to === undefined))
      throw new CliError("give exactly one of --channel (with --topic) or --to");
    if (opts.channel !== undefined && opts.topic === undefined) throw new CliError("--channel needs --topic");
    const content = opts.content === "-" ? readFileSync(0, "utf8") : opts.content;
    await withApp(
      configFor(cmd),
      async (app) => {
        const realm = await requireRealm(app);
        const sender = senderFor(app.config, realm, opts.sender);
        const id = await (
          await messageSendActions()
        ).checkSendMessage(app, sender, {
          ...(opts.channel !== undefined
            ? { type: "stream", to: opts.channel, topic: opts.topic }
            : { type: "private", to: opts.to }),
          content,
          client: "chatd CLI",
          readBySender: true,
        });
        if (opts.json) printJson({ id });
        else printLine(`sent message ${id}`);
      },
      { doing: "sending a message" },
    );
  });

export const messageCommand = new Command("message").description("send messages").addCommand(sendCommand);
