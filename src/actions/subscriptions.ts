import type { App } from "../app.js";
import type { ChannelRow, SubscriptionRow } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import {
  channelViewerIds,
  isArchived,
  isChannelViewer,
  type ChannelWorld,
} from "../permissions/channel-access.js";
import { presentChannel, presentSubscription } from "../presenters/channels.js";
import { streamEvents, subscriptionEvents } from "../presenters/events/channels.js";
import type { RealmSnapshot } from "../world/realm.js";
import { invalidateChannels } from "./channels.js";
import { loadWorld } from "../cache/world.js";

/**
 * Subscribing and unsubscribing users in bulk, with colours and events: what the
 * subscription requests (subscription-requests.ts), channel and user creation, and a
 * bot's change of owner build on.
 */

/** Zulip's channel colour palette, handed out in order of what a user does not use yet. */
export const CHANNEL_COLORS = [
  "#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5",
  "#f5ce6e", "#c2726a", "#94c849", "#bd86e5", "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063",
  "#9987e1", "#e4523d", "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462",
]; // prettier-ignore

export interface SubscriptionChange {
  user: UserRow;
  channel: ChannelRow;
}

const sortIds = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);

export function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const item of items) {
    const list = map.get(key(item));
    if (list) list.push(item);
    else map.set(key(item), [item]);
  }
  return map;
}

/** Colours for a user's new subscriptions: explicit ones, then the palette's unused ones. */
function assignColors(
  world: ChannelWorld,
  user: UserRow,
  channels: readonly ChannelRow[],
  explicit: ReadonlyMap<string, string>,
): Map<number, string> {
  const used = new Set([...world.channels.subscriptionsOf(user.id)].map((s) => s.color));
  const colors = new Map<number, string>();
  for (const channel of channels) {
    const color = explicit.get(channel.name);
    if (color !== undefined) {
      colors.set(channel.id, color);
      used.add(color);
    }
  }
  const available = CHANNEL_COLORS.filter((c) => !used.has(c));
  for (const channel of [...channels].sort((a, b) => a.id - b.id)) {
    if (colors.has(channel.id)) continue;
    colors.set(channel.id, available.shift() ?? CHANNEL_COLORS[channel.id % CHANNEL_COLORS.length]!);
  }
  return colors;
}

const INSERT_CHUNK = 400;

export interface AddSubscriptionsOptions {
  /** Colour wanted per channel name (subscribe's subscriptions[].color). */
  colors?: ReadonlyMap<string, string>;
  /** The user is being created: it has no event queue yet, only others are told. */
  fromUserCreation?: boolean;
}

/**
 * Subscribes every user to every channel (Zulip's bulk_add_subscriptions): new rows get
 * colours, past subscriptions come back with their old settings. Tells users who could
 * not see a channel about it (stream create), each user about their new subscriptions
 * (subscription add), and everyone else who sees the subscribers (peer_add).
 */
export async function doAddSubscriptions(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  channels: readonly ChannelRow[],
  users: readonly UserRow[],
  options: AddSubscriptionsOptions = {},
): Promise<{ subscribed: SubscriptionChange[]; alreadySubscribed: SubscriptionChange[] }> {
  const { realm } = world;
  const subscribed: SubscriptionChange[] = [];
  const alreadySubscribed: SubscriptionChange[] = [];
  const inserts: Array<Omit<SubscriptionRow, "id">> = [];
  const rows = new Map<string, SubscriptionRow>();
  for (const user of users) {
    const pending = channels.filter((c) => !world.channels.isSubscribed(user.id, c.id));
    const fresh = pending.filter((c) => !world.channels.subscription(user.id, c.id));
    const colors = assignColors(world, user, fresh, options.colors ?? new Map());
    for (const channel of channels) {
      const existing = world.channels.subscription(user.id, channel.id);
      if (existing && bool(existing.active)) {
        alreadySubscribed.push({ user, channel });
        continue;
      }
      subscribed.push({ user, channel });
      if (existing) {
        rows.set(`${user.id}:${channel.id}`, { ...existing, active: true, is_user_active: user.is_active });
        continue;
      }
      const row = {
        user_id: user.id,
        stream_id: channel.id,
        active: true,
        is_user_active: bool(user.is_active),
        color: colors.get(channel.id)!,
        is_muted: false,
        pin_to_top: false,
        desktop_notifications: null,
        audible_notifications: null,
        push_notifications: null,
        email_notifications: null,
        wildcard_mentions_notify: null,
      };
      inserts.push(row);
      rows.set(`${user.id}:${channel.id}`, { id: 0, ...row });
    }
  }
  if (subscribed.length === 0) return { subscribed, alreadySubscribed };
  for (let i = 0; i < inserts.length; i += INSERT_CHUNK) {
    await tx.knex("subscriptions").insert(inserts.slice(i, i + INSERT_CHUNK));
  }
  for (const change of subscribed) {
    const row = rows.get(`${change.user.id}:${change.channel.id}`)!;
    if (row.id !== 0) {
      await tx
        .knex("subscriptions")
        .where({ id: row.id })
        .update({ active: true, is_user_active: row.is_user_active });
    }
  }
  invalidateChannels(app, tx, realm.id);
  const realmId = realm.id;

  const byChannel = groupBy(subscribed, (c) => c.channel.id);
  const after = new Map<number, number[]>();
  for (const [channelId, changes] of byChannel) {
    after.set(
      channelId,
      sortIds([...world.channels.subscriberIds(channelId), ...changes.map((c) => c.user.id)]),
    );
  }
  const activeIds = (ids: readonly number[]) => ids.filter((id) => bool(realm.user(id)?.is_active));

  if (!options.fromUserCreation) {
    // Channels the new subscribers could not see before: they learn they exist.
    for (const [channelId, changes] of byChannel) {
      const channel = changes[0]!.channel;
      const before = new Set(world.channels.subscriberIds(channelId));
      const newcomers = changes
        .filter((c) => !isChannelViewer(realm, c.user, channel, before))
        .map((c) => c.user.id);
      if (newcomers.length === 0) continue;
      const dict = presentChannel(realm, world.channels, channel, { subscriberIds: after.get(channelId)! });
      tx.sendEventOnCommit(realmId, streamEvents.create([dict]), newcomers);
    }
    for (const [userId, changes] of groupBy(subscribed, (c) => c.user.id)) {
      const subscriptions = changes.map(({ channel }) => {
        const subscriberIds = after.get(channel.id)!;
        return presentSubscription(
          realm,
          world.channels,
          channel,
          rows.get(`${userId}:${channel.id}`)!,
          { key: "subscribers", ids: activeIds(subscriberIds) },
          { subscriberIds },
        );
      });
      tx.sendEventOnCommit(realmId, subscriptionEvents.add(subscriptions), [userId]);
    }
  }
  sendPeerEvents(tx, realm, "peer_add", byChannel, after);
  return { subscribed, alreadySubscribed };
}

/**
 * peer_add / peer_remove, a channel at a time: the users who joined or left it, to
 * everyone else who sees its subscribers afterwards.
 */
function sendPeerEvents(
  tx: Tx,
  realm: RealmSnapshot,
  op: "peer_add" | "peer_remove",
  byChannel: ReadonlyMap<number, readonly SubscriptionChange[]>,
  subscribersAfter: ReadonlyMap<number, Iterable<number>>,
): void {
  for (const [channelId, changes] of byChannel) {
    const channel = changes[0]!.channel;
    const changed = new Set(changes.map((c) => c.user.id));
    const recipients = [...channelViewerIds(realm, channel, subscribersAfter.get(channelId)!)].filter(
      (id) => !changed.has(id),
    );
    if (recipients.length === 0) continue;
    tx.sendEventOnCommit(realm.id, subscriptionEvents.peers(op, [channelId], sortIds(changed)), recipients);
  }
}

/**
 * Unsubscribes every user from every channel (Zulip's bulk_remove_subscriptions). The
 * rows stay, inactive, remembering the user's settings. Tells each user (subscription
 * remove), those who still see the subscribers (peer_remove), and users who can no
 * longer see a channel (stream delete).
 */
export async function doRemoveSubscriptions(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  channels: readonly ChannelRow[],
  users: readonly UserRow[],
): Promise<{ removed: SubscriptionChange[]; notRemoved: SubscriptionChange[] }> {
  const removed: SubscriptionChange[] = [];
  const notRemoved: SubscriptionChange[] = [];
  for (const user of users) {
    for (const channel of channels) {
      (world.channels.isSubscribed(user.id, channel.id) ? removed : notRemoved).push({ user, channel });
    }
  }
  if (removed.length === 0) return { removed, notRemoved };
  const { realm } = world;
  const realmId = realm.id;
  const ids = removed.map((c) => world.channels.subscription(c.user.id, c.channel.id)!.id);
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    await tx
      .knex("subscriptions")
      .whereIn("id", ids.slice(i, i + INSERT_CHUNK))
      .update({ active: false });
  }
  invalidateChannels(app, tx, realmId);

  const byChannel = groupBy(removed, (c) => c.channel.id);
  const after = new Map<number, Set<number>>();
  for (const [channelId, changes] of byChannel) {
    const gone = new Set(changes.map((c) => c.user.id));
    after.set(channelId, new Set(world.channels.subscriberIds(channelId).filter((id) => !gone.has(id))));
  }
  const byUser = groupBy(removed, (c) => c.user.id);
  for (const [userId, changes] of byUser) {
    const subscriptions = changes.map(({ channel }) => ({ name: channel.name, stream_id: channel.id }));
    tx.sendEventOnCommit(realmId, subscriptionEvents.remove(subscriptions), [userId]);
  }
  sendPeerEvents(tx, realm, "peer_remove", byChannel, after);
  for (const [userId, changes] of byUser) {
    const lost = changes
      .filter(({ user, channel }) => !isChannelViewer(realm, user, channel, after.get(channel.id)!))
      .map(({ channel }) => channel.id);
    if (lost.length === 0) continue;
    tx.sendEventOnCommit(realmId, streamEvents.delete(lost), [userId]);
  }
  return { removed, notRemoved };
}

/**
 * New (human) users join the realm's default channels; only others are told. Returns
 * the channels joined.
 */
export async function doSubscribeToDefaultChannels(app: App, tx: Tx, user: UserRow): Promise<ChannelRow[]> {
  if (bool(user.is_bot)) return [];
  const world = await loadWorld(app, tx.knex, user.realm_id);
  const channels = [...world.channels.defaultChannelIds]
    .map((id) => world.channels.channel(id))
    .filter((c): c is ChannelRow => c !== undefined && !isArchived(c));
  if (channels.length === 0) return [];
  await doAddSubscriptions(app, tx, world, channels, [user], { fromUserCreation: true });
  return channels;
}
