import type { App } from "../app.js";
import { loadWorld } from "../cache/world.js";
import { bool, type BotServiceRow, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest, insufficientPermission, mustBeOwner } from "../errors.js";
import { botConfigs } from "../lib/bots.js";
import { validateBotNameAvailable, validateFullName, validateNameAvailable } from "../lib/user-validation.js";
import { canAdministerBot } from "../permissions/bots.js";
import { accessChannelByName, invalidChannelName, type ChannelWorld } from "../permissions/channel-access.js";
import { requireMemberOrAdmin } from "../permissions/user-groups.js";
import { presentOutgoingService } from "../presenters/bots.js";
import { ALLOWED_INTERFACE_TYPES } from "../world/bots.js";
import type { RealmSnapshot } from "../world/realm.js";
import { isOwnerRole, type Role } from "../world/roles.js";
import { doIssueApiKey, doRevokeApiKeys } from "./api-keys.js";
import { doSetBotConfig } from "./bot-config.js";
import { reloadBot, sendBotUpdate } from "./bot-events.js";
import { doChangeBotOwner } from "./bot-owner.js";
import { doDeactivateUser } from "./user-activation.js";
import { requireMayChangeRole, doChangeUserRole } from "./user-role.js";
import { doChangeFullName } from "./user-update.js";
import { realmTransaction, type Actor } from "./users.js";

/**
 * Administering a bot: PATCH /bots/{id}, DELETE /bots/{id}, POST
 * /bots/{id}/api_key/regenerate, and the `chatd bot` commands (as the operator).
 */

const noSuchBot = () => badRequest("No such bot");

/**
 * Zulip's access_bot_by_id: the bot, for its owner or an administrator. A bot that may
 * create users is an owner's business only.
 */
function accessBotById(snapshot: RealmSnapshot, actor: Actor, botId: number): UserRow {
  const bot = snapshot.user(botId);
  if (!bot || !bool(bot.is_bot)) throw noSuchBot();
  if (actor === "operator") return bot;
  if (!canAdministerBot(actor, bot)) throw insufficientPermission();
  if (bool(bot.can_create_users) && !isOwnerRole(actor.role)) throw mustBeOwner();
  return bot;
}

/** What PATCH /bots/{id} may change; absent fields stay as they are. */
export interface UpdateBotInput {
  fullName?: string;
  role?: Role;
  botOwnerId?: number;
  /** Channel names; "" clears. */
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
  servicePayloadUrl?: string;
  serviceInterface: number;
  configData?: Readonly<Record<string, string>>;
}

/** A default channel by name: "" clears it; the operator may name any unarchived channel. */
function defaultChannelId(world: ChannelWorld, actor: Actor, name: string): number | null {
  if (name === "") return null;
  if (actor !== "operator") return accessChannelByName(world, actor, name).id;
  const channel = world.channels.channelByName(name);
  if (!channel || bool(channel.is_archived)) throw invalidChannelName(name);
  return channel.id;
}

/**
 * PATCH /bots/{bot_id}: every change in one transaction, in Zulip's order (name, role,
 * owner, default channels, outgoing webhook service, configuration). Returns the bot
 * as it is afterwards.
 */
export async function checkUpdateBot(
  app: App,
  actor: Actor,
  realmId: number,
  botId: number,
  input: UpdateBotInput,
) {
  if (actor !== "operator") requireMemberOrAdmin(actor);
  return app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, realmId);
    const snapshot = world.realm;
    const bot = accessBotById(snapshot, actor, botId);
    if (input.fullName !== undefined) {
      const fullName = validateFullName(input.fullName);
      validateNameAvailable(snapshot, fullName, bot.id);
      if (fullName !== bot.full_name) {
        validateBotNameAvailable(snapshot, fullName);
        await doChangeFullName(app, tx, bot, fullName);
      }
    }
    if (input.role !== undefined && input.role !== bot.role) {
      requireMayChangeRole(actor, bot.role, input.role);
      await doChangeUserRole(app, tx, bot, input.role);
    }
    if (input.botOwnerId !== undefined && input.botOwnerId !== bot.bot_owner_id) {
      await changeBotOwner(app, tx, snapshot, bot, input.botOwnerId);
    }
    if (input.defaultSendingStream !== undefined) {
      const id = defaultChannelId(world, actor, input.defaultSendingStream);
      await tx.knex("users").where({ id: bot.id }).update({ default_sending_stream_id: id });
      const name = id === null ? null : world.channels.channel(id)!.name;
      await sendBotUpdate(app, tx, await reloadBot(tx, bot.id), {
        user_id: bot.id,
        default_sending_stream: name,
      });
    }
    if (input.defaultEventsRegisterStream !== undefined) {
      const id = defaultChannelId(world, actor, input.defaultEventsRegisterStream);
      await tx.knex("users").where({ id: bot.id }).update({ default_events_register_stream_id: id });
      const name = id === null ? null : world.channels.channel(id)!.name;
      await sendBotUpdate(app, tx, await reloadBot(tx, bot.id), {
        user_id: bot.id,
        default_events_register_stream: name,
      });
    }
    if (input.defaultAllPublicStreams !== undefined) {
      await tx
        .knex("users")
        .where({ id: bot.id })
        .update({ default_all_public_streams: input.defaultAllPublicStreams });
      await sendBotUpdate(app, tx, await reloadBot(tx, bot.id), {
        user_id: bot.id,
        default_all_public_streams: input.defaultAllPublicStreams,
      });
    }
    if (input.servicePayloadUrl !== undefined) {
      if (!ALLOWED_INTERFACE_TYPES.includes(input.serviceInterface))
        throw badRequest("Invalid interface type");
      await doUpdateOutgoingWebhookService(app, tx, bot, input.servicePayloadUrl, input.serviceInterface);
    }
    if (input.configData !== undefined) await doUpdateBotConfigData(app, tx, bot, input.configData);
    tx.afterCommit(() => app.realms.invalidate(realmId));
    return reloadBot(tx, bot.id);
  });
}

/**
 * Gives the bot to another active human of the realm (Zulip's messages for the others),
 * taking from it what the new owner may not reach.
 */
async function changeBotOwner(app: App, tx: Tx, snapshot: RealmSnapshot, bot: UserRow, ownerId: number) {
  const owner = snapshot.user(ownerId);
  if (!owner) throw badRequest("Failed to change owner, no such user");
  if (!bool(owner.is_active)) throw badRequest("Failed to change owner, user is deactivated");
  if (bool(owner.is_bot)) throw badRequest("Failed to change owner, bots can't own other bots");
  const previous = bot.bot_owner_id === null ? undefined : snapshot.user(bot.bot_owner_id);
  await doChangeBotOwner(app, tx, await reloadBot(tx, bot.id), owner, previous);
}

/**
 * Points an outgoing webhook bot's service at a new URL and payload format. Bots
 * without a service (the other types) have nothing to point: refused, where Zulip
 * fails with a server error.
 */
async function doUpdateOutgoingWebhookService(
  app: App,
  tx: Tx,
  bot: UserRow,
  baseUrl: string,
  serviceInterface: number,
): Promise<void> {
  const service = await tx
    .knex<BotServiceRow>("bot_services")
    .where({ bot_user_id: bot.id })
    .orderBy("id")
    .first();
  if (!service) throw badRequest("This bot has no outgoing webhook service.");
  if (service.base_url === baseUrl && service.interface === serviceInterface) return;
  await tx
    .knex("bot_services")
    .where({ id: service.id })
    .update({ base_url: baseUrl, interface: serviceInterface });
  const updated = { ...service, base_url: baseUrl, interface: serviceInterface };
  await sendBotUpdate(app, tx, await reloadBot(tx, bot.id), {
    user_id: bot.id,
    services: [presentOutgoingService(updated)],
  });
}

/** Sets configuration entries; those who administer the bot get its whole new configuration. */
async function doUpdateBotConfigData(
  app: App,
  tx: Tx,
  bot: UserRow,
  config: Readonly<Record<string, string>>,
): Promise<void> {
  await doSetBotConfig(tx, bot.id, Object.entries(config));
  const all = (await botConfigs(tx.knex, [bot.id])).get(bot.id) ?? {};
  await sendBotUpdate(app, tx, await reloadBot(tx, bot.id), {
    user_id: bot.id,
    services: [{ config_data: all }],
  });
}

/** DELETE /bots/{bot_id}: deactivates the bot (nothing happens if it already is). */
export async function checkDeactivateBot(
  app: App,
  actor: Actor,
  realmId: number,
  botId: number,
): Promise<UserRow> {
  return realmTransaction(app, realmId, async (tx, snapshot) => {
    const bot = accessBotById(snapshot, actor, botId);
    if (bool(bot.is_active)) await doDeactivateUser(app, tx, bot);
    return bot;
  });
}

/**
 * POST /bots/{bot_id}/api_key/regenerate: revokes every key of the bot and issues one
 * new key, returned this once.
 */
export async function checkRegenerateBotApiKey(
  app: App,
  actor: Actor,
  realmId: number,
  botId: number,
  keyLabel: string,
): Promise<{ bot: UserRow; apiKey: string }> {
  if (actor !== "operator") requireMemberOrAdmin(actor);
  return realmTransaction(app, realmId, async (tx, snapshot) => {
    const bot = accessBotById(snapshot, actor, botId);
    await doRevokeApiKeys(app, tx, bot.id);
    return { bot, apiKey: await doIssueApiKey(app, tx, bot.id, keyLabel) };
  });
}
