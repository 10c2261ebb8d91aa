import { Command } from "commander";
import type { App } from "../../app.js";
import type { Config } from "../../config.js";
import type { ChannelRow } from "../../db/channel-rows.js";
import { bool, type UserRow } from "../../db/rows.js";
import { presentChannel } from "../../presenters/channels.js";
import { permissionPolicy } from "../../actions/channel-notices.js";
import type { ChannelSnapshot } from "../../world/channels.js";
import type { RealmSnapshot } from "../../world/realm.js";
import { validateNotEmpty } from "../validation.js";
import { configFor, withApp } from "../context.js";
import { CliError, formatTable, printJson, printLine } from "../output.js";
import { canPrompt, valueOrAsk, type PromptOptions } from "../prompts.js";
import { requireOperatorOwner, requireRealm, requireUserByEmail } from "../realm.js";

// Loaded when the command runs: a server never needs them (test/cli/lazy-loading.test.ts).
const channelCreateActions = () => import("../../actions/channel-create.js");
const channelUpdateActions = () => import("../../actions/channel-update.js");

/**
 * `chatd channel ...`: channels through the API's actions and rules (POST /channels/create,
 * DELETE /streams/{id}), acting as an owner of the organization. Events go through the
 * outbox to a running server, as for every admin command.
 */

interface ChannelOptions extends PromptOptions {
  name?: string;
  json?: boolean;
}

/** The channel's API record, with is_default as GET /streams?include_default=true gives it. */
function channelRecord(realm: RealmSnapshot, channels: ChannelSnapshot, channel: ChannelRow) {
  return {
    ...presentChannel(realm, channels, channel),
    is_default: channels.defaultChannelIds.has(channel.id),
  };
}

async function channelsOf(app: App, realm: RealmSnapshot): Promise<ChannelSnapshot> {
  return app.channels.get(app.knex, realm.id);
}

/** `everyone` (every active person, no bots) or comma-separated real or API emails. */
function subscribersFrom(config: Config, realm: RealmSnapshot, value: string | undefined): UserRow[] {
  if (value === undefined) return [];
  if (value.trim().toLowerCase() === "everyone") {
    return [...realm.users].filter((u) => bool(u.is_active) && !bool(u.is_bot));
  }
  return value
    .split(",")
    .map((email) => email.trim())
    .filter((email) => email !== "")
    .map((email) => requireUserByEmail(config, realm, email));
}

interface CreateOptions extends ChannelOptions {
  description?: string;
  private?: boolean;
  default?: boolean;
  announce?: boolean;
  subscribers?: string;
}

const createCommand = new Command("create")
  .description("create a channel (as POST /channels/create does, with its rules)")
  .option("--name <name>", "the channel's name")
  .option("--description <text>", "its description (Zulip Markdown)")
  .option("--private", "make it private (invite-only); default: public")
  .option("--default", "make it a default channel: new users join it")
  .option("--subscribers <emails>", "comma-separated emails to subscribe, or 'everyone' (active people)")
  .option("--announce", "announce it in the organization's new-channels channel")
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print the channel's API record as JSON")
  .action(async (opts: CreateOptions, cmd: Command) => {
    await withApp(
      configFor(cmd),
      async (app) => {
        const realm = await requireRealm(app);
        const owner = requireOperatorOwner(realm);
        const name = await valueOrAsk(
          opts,
          opts.name,
          "--name",
          "Channel name",
          "input",
          validateNotEmpty("Channel name"),
        );
        const description =
          opts.description ??
          (canPrompt(opts)
            ? await valueOrAsk(opts, undefined, "--description", "Description (optional)")
            : "");
        const id = await (
          await channelCreateActions()
        ).checkCreateChannel(app, owner, {
          name,
          description,
          subscribers: subscribersFrom(app.config, realm, opts.subscribers).map((u) => u.id),
          announce: opts.announce === true,
          creation: {
            invite_only: opts.private === true,
            is_web_public: false,
            is_default_stream: opts.default === true,
            groups: {},
          },
        });
        const channels = await channelsOf(app, realm);
        const channel = channels.channel(id)!;
        if (opts.json) printJson(channelRecord(await app.realms.get(app.knex, realm.id), channels, channel));
        else printLine(`created channel #${channel.name} (ID ${id})`);
      },
      { doing: "creating a channel" },
    );
  });

interface ListOptions {
  includeArchived?: boolean;
  json?: boolean;
}

const listCommand = new Command("list")
  .description("list every channel, private ones included")
  .option("--include-archived", "include archived channels")
  .option("--no-input", "never prompt (this command asks nothing)")
  .option("--json", "print the channels' API records as JSON")
  .action(async (opts: ListOptions, cmd: Command) => {
    await withApp(
      configFor(cmd),
      async (app) => {
        const realm = await requireRealm(app);
        const channels = await channelsOf(app, realm);
        const rows = [...channels.channels.values()]
          .filter((c) => opts.includeArchived === true || !bool(c.is_archived))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        if (opts.json) return printJson(rows.map((c) => channelRecord(realm, channels, c)));
        printLine(
          formatTable(
            ["ID", "NAME", "ACCESS", "DEFAULT", "SUBSCRIBERS", "ARCHIVED"],
            rows.map((c) => [
              String(c.id),
              c.name,
              permissionPolicy(c),
              channels.defaultChannelIds.has(c.id) ? "yes" : "",
              String(channels.activeSubscriberIds(realm, c.id).length),
              bool(c.is_archived) ? "yes" : "",
            ]),
          ),
        );
      },
      { doing: "listing channels" },
    );
  });

const archiveCommand = new Command("archive")
  .description("archive a channel (as DELETE /streams/{id}): its history stays, nobody can post")
  .option("--name <name>", "the channel's name")
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print the archived channel's API record as JSON")
  .action(async (opts: ChannelOptions, cmd: Command) => {
    await withApp(
      configFor(cmd),
      async (app) => {
        const realm = await requireRealm(app);
        const owner = requireOperatorOwner(realm);
        const channels = await channelsOf(app, realm);
        const find = (value: string) => {
          const found = channels.channelByName(value.trim());
          if (!found) throw new CliError(`no channel named ${value.trim()}`);
          return found;
        };
        const name = await valueOrAsk(opts, opts.name, "--name", "Channel to archive", "input", (value) => {
          find(value);
          return value;
        });
        const channel = find(name);
        await (await channelUpdateActions()).checkArchiveChannel(app, owner, channel.id);
        const after = await channelsOf(app, realm);
        if (opts.json) printJson(channelRecord(realm, after, after.channel(channel.id)!));
        else printLine(`archived channel #${channel.name}`);
      },
      { doing: "archiving a channel" },
    );
  });

export const channelCommand = new Command("channel")
  .description("administer channels")
  .addCommand(createCommand)
  .addCommand(listCommand)
  .addCommand(archiveCommand);
