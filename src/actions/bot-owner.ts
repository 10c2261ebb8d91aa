import type { App } from "../app.js";
import { loadWorld } from "../cache/world.js";
import type { ChannelRow } from "../db/channel-rows.js";
import type { UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import type { BotUpdate } from "../events/types.js";
import {
  canAccessChannelContent,
  canAccessChannelMetadata,
  isPrivate,
  type ChannelWorld,
} from "../permissions/channel-access.js";
import { reloadBot, sendBotOwnerUpdateEvents, sendBotUpdate } from "./bot-events.js";
import { doRemoveSubscriptions } from "./subscriptions.js";

/**
 * What a bot keeps when it passes to a new owner. Whoever owns a bot may take its key,
 * so the bot must not reach what its new owner may not: it leaves the private channels
 * whose messages the new owner may not read (Zulip's
 * remove_bot_from_inaccessible_private_streams, "not subscribed" there; Zulip removed it
 * in February 2025, zulip/zulip#33641, chatd keeps it), and default channels the new
 * owner may not see are cleared (chatd's own rule: realm_bots would show their names).
 */

/**
 * Gives the bot to `owner` (PATCH /bots/{id}): defaults cleared first, so the new
 * owner's realm_bot add never names them; the owner events; then the unsubscriptions.
 */
export async function doChangeBotOwner(
  app: App,
  tx: Tx,
  bot: UserRow,
  owner: UserRow,
  previousOwner: UserRow | undefined,
): Promise<void> {
  await doClearDefaultChannelsHiddenFrom(app, tx, bot, owner);
  await tx.knex("users").where({ id: bot.id }).update({ bot_owner_id: owner.id });
  await sendBotOwnerUpdateEvents(app, tx, await reloadBot(tx, bot.id), owner, previousOwner);
  await doRemoveBotFromChannelsHiddenFrom(app, tx, bot, owner);
}

const DEFAULT_CHANNELS = [
  ["default_sending_stream_id", (user_id: number): BotUpdate => ({ user_id, default_sending_stream: null })],
  [
    "default_events_register_stream_id",
    (user_id: number): BotUpdate => ({ user_id, default_events_register_stream: null }),
  ],
] as const;

/** Clears the bot's default channels that `owner` may not see, each with its realm_bot update. */
export async function doClearDefaultChannelsHiddenFrom(
  app: App,
  tx: Tx,
  bot: UserRow,
  owner: UserRow,
): Promise<void> {
  const world = await loadWorld(app, tx.knex, bot.realm_id);
  for (const [column, cleared] of DEFAULT_CHANNELS) {
    const id = bot[column];
    const channel = id === null ? undefined : world.channels.channel(id);
    if (!channel || canAccessChannelMetadata(world, owner, channel)) continue;
    await tx
      .knex("users")
      .where({ id: bot.id })
      .update({ [column]: null });
    await sendBotUpdate(app, tx, await reloadBot(tx, bot.id), cleared(bot.id));
  }
}

/**
 * Unsubscribes the bot from the private channels whose messages `owner` may not read,
 * with the events of any unsubscription. Public channels stay: the bot reads them anyway.
 */
export async function doRemoveBotFromChannelsHiddenFrom(
  app: App,
  tx: Tx,
  bot: UserRow,
  owner: UserRow,
): Promise<void> {
  const world: ChannelWorld = await loadWorld(app, tx.knex, bot.realm_id);
  const hidden: ChannelRow[] = [];
  for (const subscription of world.channels.subscriptionsOf(bot.id)) {
    const channel = world.channels.channel(subscription.stream_id);
    if (!channel || !world.channels.isSubscribed(bot.id, channel.id) || !isPrivate(channel)) continue;
    if (!canAccessChannelContent(world, owner, channel)) hidden.push(channel);
  }
  if (hidden.length === 0) return;
  hidden.sort((a, b) => a.id - b.id);
  await doRemoveSubscriptions(app, tx, world, hidden, [world.realm.user(bot.id) ?? bot]);
}
