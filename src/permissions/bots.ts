import { bool, type UserRow } from "../db/rows.js";
import { BOT_TYPE } from "../world/bots.js";
import type { ChannelSnapshot } from "../world/channels.js";
import type { RealmSnapshot } from "../world/realm.js";
import { isAdminRole } from "../world/roles.js";
import { userHasRealmPermission } from "./setting-permissions.js";

/**
 * Who may create and administer bots, and who hears about a bot's configuration, as
 * Zulip's check_can_create_bot, allowed_bot_types, can_admin_user and
 * bot_owner_user_ids decide.
 */

/**
 * May the user create a bot of this type? can_create_bots_group allows every type;
 * can_create_write_only_bots_group only incoming webhooks (bots that can only send).
 */
export function mayCreateBot(realm: RealmSnapshot, user: UserRow, botType: number): boolean {
  if (userHasRealmPermission(realm, user, "can_create_bots_group")) return true;
  return (
    botType === BOT_TYPE.INCOMING_WEBHOOK &&
    userHasRealmPermission(realm, user, "can_create_write_only_bots_group")
  );
}

/** The bot types the user may create. chatd runs no embedded bots, so never type 4. */
export function allowedBotTypes(realm: RealmSnapshot, user: UserRow): number[] {
  if (userHasRealmPermission(realm, user, "can_create_bots_group")) {
    return [BOT_TYPE.GENERIC, BOT_TYPE.INCOMING_WEBHOOK, BOT_TYPE.OUTGOING_WEBHOOK];
  }
  if (userHasRealmPermission(realm, user, "can_create_write_only_bots_group")) {
    return [BOT_TYPE.INCOMING_WEBHOOK];
  }
  return [];
}

/** A bot's owner and the organization's administrators administer it. */
export const canAdministerBot = (user: UserRow, bot: UserRow) =>
  bot.bot_owner_id === user.id || isAdminRole(user.role);

/**
 * The bots whose configuration a user sees (register's realm_bots): every bot of the
 * organization for an administrator, deactivated ones included; else the bots they own.
 */
export function administeredBots(realm: RealmSnapshot, user: UserRow): UserRow[] {
  const admin = isAdminRole(user.role);
  return [...realm.users].filter((u) => bool(u.is_bot) && (admin || u.bot_owner_id === user.id));
}

/**
 * Who gets a bot's realm_bot events: its owner and the active human administrators,
 * or only its owner when a default channel of the bot is private (the administrators
 * may not know the channel).
 */
export function botAdministratorIds(realm: RealmSnapshot, channels: ChannelSnapshot, bot: UserRow): number[] {
  const privateChannel = (id: number | null) => id !== null && bool(channels.channel(id)?.invite_only);
  const ids = new Set<number>();
  if (
    !privateChannel(bot.default_sending_stream_id) &&
    !privateChannel(bot.default_events_register_stream_id)
  ) {
    for (const u of realm.users) {
      if (bool(u.is_active) && !bool(u.is_bot) && isAdminRole(u.role)) ids.add(u.id);
    }
  }
  if (bot.bot_owner_id !== null) ids.add(bot.bot_owner_id);
  return [...ids];
}
