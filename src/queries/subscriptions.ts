import type { Knex } from "knex";
import type { App } from "../app.js";
import type { ChannelFolderRow, ChannelRow } from "../db/channel-rows.js";
import { bool, int, jsonColumn, type UserRow } from "../db/rows.js";
import type { StateContext } from "./state-context.js";
import { hasCapability } from "../wire/events.js";
import {
  canAccessChannelMetadata,
  canSeeSubscribers,
  isArchived,
  type ChannelWorld,
} from "../permissions/channel-access.js";
import type { ChannelSnapshot } from "../world/channels.js";
import { isGuestRole } from "../world/roles.js";
import {
  compareByName,
  presentChannel,
  presentChannelFolder,
  presentNeverSubscribed,
  presentSubscription,
  type ApiChannel,
  type SubscriberField,
} from "../presenters/channels.js";
import type { PresenceRecord } from "../cache/presence-store.js";

/** Channels with fewer subscribers always get their full `subscribers` list (partial mode). */
export const PARTIAL_SUBSCRIBERS_THRESHOLD = 250;
/** partial_subscribers always holds bots and users active this recently. */
const RECENT_ACTIVITY_SECS = 14 * 24 * 3600;

export type IncludeSubscribers = boolean | "partial";

/** Presence records by user: the store's, or a copy taken with a register's snapshot. */
type PresenceRecords = ReadonlyMap<number, PresenceRecord>;

/**
 * Users recently active enough that a partial subscriber list must name them: bots,
 * users who joined or were present (the presence store) in the last 14 days.
 */
async function recentlyActiveUserIds(
  app: App,
  world: ChannelWorld,
  presence: PresenceRecords | null,
): Promise<Set<number>> {
  const cutoff = Math.floor(app.clock.nowMs() / 1000) - RECENT_ACTIVITY_SECS;
  const ids = new Set<number>();
  for (const user of world.realm.users) {
    if (bool(user.is_bot) || int(user.date_joined) >= cutoff) ids.add(user.id);
  }
  const records = presence ?? (await app.presence.realm(world.realm.id)).records;
  for (const [userId, record] of records) {
    if ((record.lastActiveTime ?? 0) >= cutoff || (record.lastConnectedTime ?? 0) >= cutoff) ids.add(userId);
  }
  return ids;
}

/**
 * How subscribers appear on each listed channel, for one viewer: not at all, in full,
 * or (partial mode, big channels) as partial_subscribers. Channels whose subscribers
 * the viewer may not see get an empty list, as Zulip sends.
 */
export async function subscriberFields(
  app: App,
  knex: Knex,
  world: ChannelWorld,
  viewer: UserRow,
  mode: IncludeSubscribers,
  listed: readonly ChannelRow[],
  /** Presence as of a register's snapshot; null: the store's current records. */
  presence: PresenceRecords | null = null,
): Promise<(channel: ChannelRow) => SubscriberField> {
  if (mode === false) return () => null;
  const big = (c: ChannelRow) =>
    world.channels.activeSubscriberIds(world.realm, c.id).length >= PARTIAL_SUBSCRIBERS_THRESHOLD;
  const recent =
    mode === "partial" && listed.some(big) ? await recentlyActiveUserIds(app, world, presence) : null;
  return (channel) => {
    if (!canSeeSubscribers(world, viewer, channel)) return { key: "subscribers", ids: [] };
    const ids = world.channels.activeSubscriberIds(world.realm, channel.id);
    if (recent && ids.length >= PARTIAL_SUBSCRIBERS_THRESHOLD) {
      return { key: "partial_subscribers", ids: ids.filter((id) => recent.has(id)) };
    }
    return { key: "subscribers", ids };
  };
}

export interface SubscriptionLists {
  subscriptions: ApiChannel[];
  unsubscribed: ApiChannel[];
  never_subscribed: ApiChannel[];
}

/**
 * The user's subscriptions, past subscriptions it can still see, and visible channels
 * it never joined (Zulip's gather_subscriptions_helper), each sorted by name.
 */
export async function gatherSubscriptions(
  app: App,
  knex: Knex,
  world: ChannelWorld,
  user: UserRow,
  mode: IncludeSubscribers,
  includeArchived: boolean,
  /** Only the `subscriptions` list (GET /users/me/subscriptions); the others stay empty. */
  subscribedOnly = false,
  /** Presence as of a register's snapshot; null: the store's current records. */
  presence: PresenceRecords | null = null,
): Promise<SubscriptionLists> {
  const { realm, channels } = world;
  const subscribed: ChannelRow[] = [];
  const unsubscribed: ChannelRow[] = [];
  const never: ChannelRow[] = [];
  for (const channel of channels.channels.values()) {
    if (!includeArchived && isArchived(channel)) continue;
    const sub = channels.subscription(user.id, channel.id);
    if (sub && bool(sub.active)) subscribed.push(channel);
    else if (!subscribedOnly && canAccessChannelMetadata(world, user, channel))
      (sub ? unsubscribed : never).push(channel);
  }
  const fields = await subscriberFields(
    app,
    knex,
    world,
    user,
    mode,
    [...subscribed, ...unsubscribed, ...never],
    presence,
  );
  const present = (list: ChannelRow[]) =>
    list.map((c) =>
      presentSubscription(realm, channels, c, channels.subscription(user.id, c.id)!, fields(c)),
    );
  return {
    subscriptions: present(subscribed).sort(compareByName),
    unsubscribed: present(unsubscribed).sort(compareByName),
    never_subscribed: never
      .map((c) => presentNeverSubscribed(realm, channels, c, fields(c)))
      .sort(compareByName),
  };
}

const archivedChannels = (ctx: StateContext) => hasCapability(ctx.options, "archived_channels");

/** Channel notification settings an old client cannot take as null (inherit). */
const INHERITABLE_NOTIFICATION_SETTINGS = [
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
] as const;

/**
 * Zulip's handle_stream_notifications_compatibility: for clients without the
 * notification_settings_null capability, a channel setting left to inherit shows the
 * user's own default for channel messages (enable_stream_<setting>; Zulip's default,
 * false, until the user sets it).
 */
function withInheritedNotificationSettings(user: UserRow, sub: Record<string, unknown>) {
  const settings = jsonColumn<Record<string, unknown>>(user.settings, {});
  const shaped = { ...sub };
  for (const name of INHERITABLE_NOTIFICATION_SETTINGS) {
    if (shaped[name] === null) shaped[name] = settings[`enable_stream_${name}`] === true;
  }
  return shaped;
}

/** The `subscription` fetch type: subscriptions, unsubscribed, never_subscribed. */
export async function fetchSubscriptionState(ctx: StateContext): Promise<Record<string, unknown>> {
  const lists = await gatherSubscriptions(
    ctx.app,
    ctx.knex,
    ctx.world,
    ctx.user,
    ctx.includeSubscribers,
    archivedChannels(ctx),
    false,
    ctx.presenceRecords,
  );
  if (hasCapability(ctx.options, "notification_settings_null")) return { ...lists };
  const compatible = (list: Record<string, unknown>[]) =>
    list.map((sub) => withInheritedNotificationSettings(ctx.user, sub));
  return {
    ...lists,
    subscriptions: compatible(lists.subscriptions),
    unsubscribed: compatible(lists.unsubscribed),
  };
}

/** The `stream` fetch type: every channel the user may see (metadata access). */
export function fetchStreamState(ctx: StateContext): Promise<Record<string, unknown>> {
  const { world } = ctx;
  const archived = archivedChannels(ctx);
  const streams = [...world.channels.channels.values()]
    .filter((c) => (archived || !isArchived(c)) && canAccessChannelMetadata(world, ctx.user, c))
    .map((c) => presentChannel(world.realm, world.channels, c))
    .sort(compareByName);
  return Promise.resolve({ streams });
}

/** Folders in display order. */
export const sortedFolders = (channels: ChannelSnapshot): ChannelFolderRow[] =>
  [...channels.folders.values()].sort((a, b) => a.order - b.order || a.id - b.id);

/** The `channel_folders` fetch type: every folder, archived ones too, in display order. */
export function fetchChannelFolderState(ctx: StateContext): Promise<Record<string, unknown>> {
  return Promise.resolve({ channel_folders: sortedFolders(ctx.world.channels).map(presentChannelFolder) });
}

/** The `default_streams` fetch type: IDs of the default channels (none for guests). */
export function fetchDefaultStreamsState(ctx: StateContext): Promise<Record<string, unknown>> {
  if (isGuestRole(ctx.user.role)) return Promise.resolve({ realm_default_streams: [] });
  const ids = [...ctx.world.channels.defaultChannelIds].sort((a, b) => a - b);
  return Promise.resolve({ realm_default_streams: ids });
}
