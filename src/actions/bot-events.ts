import type { Knex } from "knex";
import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import type { BotUpdate, RealmBotEvent } from "../wire/events.js";
import type { WireBot } from "../wire/records.js";
import { activeUserIds } from "../lib/recipients.js";
import { botAdministratorIds } from "../permissions/bots.js";
import { realmBotEvents } from "../presenters/events/bots.js";
import { realmUserEvents } from "../presenters/events/users.js";
import { loadBotRecords } from "../queries/realm-bots.js";
import { isAdminRole } from "../world/roles.js";

/**
 * realm_bot events, as Zulip sends them: to a bot's owner and (unless a default
 * channel of the bot is private) the organization's administrators. Used by the bot
 * actions and by the user actions that also concern bots (names, (de)activation).
 */

/** The bot's realm_bots record, read inside the transaction (channels, services, config). */
async function loadBotRecord(app: App, knex: Knex, bot: UserRow): Promise<WireBot> {
  const [record] = await loadBotRecords(app, knex, bot.realm_id, [bot]);
  return record!;
}

/** The bot's row as the transaction now sees it. */
export async function reloadBot(tx: Tx, botId: number): Promise<UserRow> {
  return (await tx.knex<UserRow>("users").where({ id: botId }).first())!;
}

/** Sends `event` about `bot` (its current row) to those who administer it. */
export async function sendRealmBotEvent(app: App, tx: Tx, bot: UserRow, event: RealmBotEvent): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, bot.realm_id);
  const channels = await app.channels.get(tx.knex, bot.realm_id);
  tx.sendEventOnCommit(bot.realm_id, event, botAdministratorIds(snapshot, channels, bot));
}

/** A realm_bot update about one attribute of the bot (its row after the change). */
export async function sendBotUpdate(app: App, tx: Tx, bot: UserRow, change: BotUpdate): Promise<void> {
  if (!bool(bot.is_bot)) return;
  await sendRealmBotEvent(app, tx, bot, realmBotEvents.update(change));
}

/** A new bot (or a reactivated one's details) for those who administer it. */
export async function sendBotAdded(app: App, tx: Tx, bot: UserRow): Promise<void> {
  await sendRealmBotEvent(app, tx, bot, realmBotEvents.add(await loadBotRecord(app, tx.knex, bot)));
}

/**
 * After a bot changed owner (the row already says so): the previous owner stops
 * administering it (delete) and the new one starts (add), unless they are
 * administrators, who see every bot anyway and get an update like the others; and
 * everyone learns the User record's new bot_owner_id.
 */
export async function sendBotOwnerUpdateEvents(
  app: App,
  tx: Tx,
  bot: UserRow,
  newOwner: UserRow,
  previousOwner: UserRow | undefined,
): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, bot.realm_id);
  const channels = await app.channels.get(tx.knex, bot.realm_id);
  const updateUsers = new Set(botAdministratorIds(snapshot, channels, bot));
  if (previousOwner && !isAdminRole(previousOwner.role)) {
    tx.sendEventOnCommit(bot.realm_id, realmBotEvents.delete(bot.id), [previousOwner.id]);
    updateUsers.delete(previousOwner.id);
  }
  if (!isAdminRole(newOwner.role)) {
    const record = await loadBotRecord(app, tx.knex, bot);
    tx.sendEventOnCommit(bot.realm_id, realmBotEvents.add(record), [newOwner.id]);
    updateUsers.delete(newOwner.id);
  }
  tx.sendEventOnCommit(
    bot.realm_id,
    realmBotEvents.update({ user_id: bot.id, owner_id: newOwner.id }),
    updateUsers,
  );
  tx.sendEventOnCommit(
    bot.realm_id,
    realmUserEvents.update({ user_id: bot.id, bot_owner_id: newOwner.id }),
    activeUserIds(snapshot),
  );
}
