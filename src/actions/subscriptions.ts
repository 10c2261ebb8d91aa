import type { App } from "../app.js";
import type { Config } from "../config.js";
import type { ChannelRow, SubscriptionRow } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest, insufficientPermission, notAllowedForGuests } from "../errors.js";
import {
  accessChannelById,
  canAccessChannelContent,
  canAddSubscribers,
  canRemoveSubscribers,
  channelViewerIds,
  isArchived,
  isChannelViewer,
  type ChannelWorld,
} from "../permissions/channel-access.js";
import { userByVisibleEmail } from "../lib/access-users.js";
import { checkChannelName, checkColor, normalizeChannelDescription } from "../lib/channel-validation.js";
import { isGuestRole } from "../world/roles.js";
import { presentChannel, presentSubscription } from "../presenters/channels.js";
import { streamEvents, subscriptionEvents } from "../presenters/events/channels.js";
import { LIMITS } from "../lib/realm-limits.js";
import {
  announcementMessage,
  creationNotice,
  NEW_CHANNELS_TOPIC,
  sendBotChannelMessage,
  sendBotDirectMessage,
  sendChannelNotice,
  subscribedYouMessage,
} from "./channel-notices.js";
import {
  checkFolderId,
  checkTopicsPolicyPermission,
  doAddDefaultChannels,
  doCreateChannel,
  invalidateChannels,
  prepareChannelCreation,
  type ChannelCreationParams,
} from "./channels.js";
import { loadWorld } from "../cache/world.js";

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

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
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
  for (const [channelId, changes] of byChannel) {
    const channel = changes[0]!.channel;
    const added = new Set(changes.map((c) => c.user.id));
    const recipients = [...channelViewerIds(realm, channel, after.get(channelId)!)].filter(
      (id) => !added.has(id),
    );
    if (recipients.length === 0) continue;
    tx.sendEventOnCommit(
      realmId,
      subscriptionEvents.peers("peer_add", [channelId], sortIds(added)),
      recipients,
    );
  }
  return { subscribed, alreadySubscribed };
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
  for (const [channelId, changes] of byChannel) {
    const channel = changes[0]!.channel;
    const gone = new Set(changes.map((c) => c.user.id));
    const recipients = [...channelViewerIds(realm, channel, after.get(channelId)!)].filter(
      (id) => !gone.has(id),
    );
    if (recipients.length === 0) continue;
    tx.sendEventOnCommit(
      realmId,
      subscriptionEvents.peers("peer_remove", [channelId], sortIds(gone)),
      recipients,
    );
  }
  for (const [userId, changes] of byUser) {
    const lost = changes
      .filter(({ user, channel }) => !isChannelViewer(realm, user, channel, after.get(channel.id)!))
      .map(({ channel }) => channel.id);
    if (lost.length === 0) continue;
    tx.sendEventOnCommit(realmId, streamEvents.delete(lost), [userId]);
  }
  return { removed, notRemoved };
}

/** New (human) users join the realm's default channels; only others are told. */
export async function doSubscribeToDefaultChannels(app: App, tx: Tx, user: UserRow): Promise<void> {
  if (bool(user.is_bot)) return;
  const world = await loadWorld(app, tx.knex, user.realm_id);
  const channels = [...world.channels.defaultChannelIds]
    .map((id) => world.channels.channel(id))
    .filter((c): c is ChannelRow => c !== undefined && !isArchived(c));
  if (channels.length === 0) return;
  await doAddSubscriptions(app, tx, world, channels, [user], { fromUserCreation: true });
}

// ---- POST /users/me/subscriptions ----

export type Principal = number | string;

/**
 * Users named by ID or by an email the actor may see (Zulip's
 * bulk_principals_to_user_profiles): every one must exist ("No such user", also for a
 * hidden real email), then be active ("User is deactivated"). Bots are fine.
 */
export function resolvePrincipals(
  config: Config,
  world: ChannelWorld,
  actor: UserRow,
  principals: readonly Principal[],
): UserRow[] {
  const users = principals.map((principal) =>
    typeof principal === "number"
      ? world.realm.user(principal)
      : userByVisibleEmail(config, world.realm, actor, principal),
  );
  if (users.some((u) => u === undefined)) throw badRequest("No such user");
  const unique = [...new Map(users.map((u) => [u!.id, u!])).values()];
  if (unique.some((u) => !bool(u.is_active))) throw badRequest("User is deactivated");
  return unique;
}

export interface SubscribeRequest {
  subscriptions: ReadonlyArray<{ name: string; color?: string; description?: string }>;
  principals?: readonly Principal[];
  authorization_errors_fatal: boolean;
  announce: boolean;
  send_new_subscription_messages: boolean;
  creation: ChannelCreationParams;
}

export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
  new_subscription_messages_sent?: boolean;
}

function namesByUser(changes: readonly SubscriptionChange[]): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const { user, channel } of changes) (result[String(user.id)] ??= []).push(channel.name);
  return result;
}

/**
 * Subscribes the caller or the principals to channels, creating missing ones with the
 * request's creation parameters (Zulip's add_subscriptions_backend).
 */
export async function checkSubscribe(
  app: App,
  actor: UserRow,
  req: SubscribeRequest,
): Promise<SubscribeResult> {
  if (isGuestRole(actor.role)) throw notAllowedForGuests();
  for (const [i, sub] of req.subscriptions.entries()) {
    if (sub.color !== undefined) checkColor(sub.color, `subscriptions[${i}]["color"]`);
  }
  return app.db.transaction((tx) => doSubscribeRequest(app, tx, actor, req));
}

/** checkSubscribe's work inside the caller's transaction; the caller checked colours and guests. */
async function doSubscribeRequest(
  app: App,
  tx: Tx,
  actor: UserRow,
  req: SubscribeRequest,
): Promise<SubscribeResult> {
  let world = await loadWorld(app, tx.knex, actor.realm_id);
  if (req.creation.folder_id !== undefined && req.creation.folder_id !== null) {
    checkFolderId(world.channels, req.creation.folder_id);
  }
  const colors = new Map<string, string>();
  const wanted: Array<{ name: string; description: string }> = [];
  for (const sub of req.subscriptions) {
    const name = sub.name.trim();
    if (sub.color !== undefined) colors.set(name, sub.color);
    wanted.push({ name, description: normalizeChannelDescription(sub.description ?? "") });
    checkTopicsPolicyPermission(world.realm, actor, req.creation.topics_policy);
  }
  const principals = req.principals ?? [];
  const subscribingOthers = principals.length > 0 && !principals.every((p) => p === actor.id);

  // Zulip's list_to_streams: names, then existing vs. missing, then creation.
  for (const { name } of wanted) checkChannelName(name);
  const existing: ChannelRow[] = [];
  const missing: Array<{ name: string; description: string }> = [];
  const seen = new Set<string>();
  for (const item of wanted) {
    const key = item.name.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const channel = world.channels.channelByName(item.name);
    if (channel) existing.push(channel);
    else missing.push(item);
  }
  const created: ChannelRow[] = [];
  if (missing.length > 0) {
    const prepared = prepareChannelCreation(app, world, actor, req.creation);
    for (const item of missing) {
      const made = await doCreateChannel(app, tx, world, actor, { ...item, settings: prepared });
      world = { ...world, realm: made.realm };
      created.push(made.channel);
    }
  }

  const unauthorized = existing.filter((c) => !canAccessChannelContent(world, actor, c));
  if (unauthorized.length > 0 && req.authorization_errors_fatal) {
    throw badRequest(`Unable to access channel (${unauthorized[0]!.name}).`);
  }
  const authorized = existing.filter((c) => !unauthorized.includes(c));
  if (subscribingOthers && authorized.some((c) => !canAddSubscribers(world.realm, actor, c))) {
    throw insufficientPermission();
  }
  const users = subscribingOthers ? resolvePrincipals(app.config, world, actor, principals) : [actor];
  if (req.creation.is_default_stream && created.length > 0) {
    await doAddDefaultChannels(app, tx, world, created);
  }
  const channels = [...authorized, ...created];
  const { subscribed, alreadySubscribed } = await doAddSubscriptions(app, tx, world, channels, users, {
    colors,
  });

  const result: SubscribeResult = {
    subscribed: namesByUser(subscribed),
    already_subscribed: namesByUser(alreadySubscribed),
  };
  // Notification Bot: DMs to those someone else subscribed, the announcement, and a
  // notice in each new channel; all read for the actor.
  const markAsRead = [actor.id];
  if (req.send_new_subscription_messages) {
    const sent = Object.keys(result.subscribed).length <= LIMITS.max_bulk_new_subscription_messages;
    result.new_subscription_messages_sent = sent;
    if (sent) {
      const createdIds = new Set(created.map((c) => c.id));
      for (const changes of groupBy(subscribed, (c) => c.user.id).values()) {
        const user = changes[0]!.user;
        if (user.id === actor.id || bool(user.is_bot)) continue;
        const names = changes.filter((c) => !createdIds.has(c.channel.id)).map((c) => c.channel.name);
        if (names.length > 0)
          await sendBotDirectMessage(app, tx, user, subscribedYouMessage(actor, names), markAsRead);
      }
    }
  }
  if (req.announce && created.length > 0) {
    const announcementsId = world.realm.realm.new_stream_announcements_stream_id;
    const target =
      announcementsId === null
        ? undefined
        : (world.channels.channel(announcementsId) ?? created.find((c) => c.id === announcementsId));
    if (target && !isArchived(target)) {
      await sendBotChannelMessage(app, tx, target, NEW_CHANNELS_TOPIC, announcementMessage(actor, created), {
        markAsRead,
        realm: world.realm,
      });
    }
  }
  for (const channel of created) {
    await sendChannelNotice(app, tx, channel, creationNotice(actor, channel), {
      markAsRead,
      realm: world.realm,
    });
  }
  if (!req.authorization_errors_fatal) result.unauthorized = unauthorized.map((c) => c.name);
  return result;
}

// ---- DELETE /users/me/subscriptions ----

/**
 * Unsubscribes the caller or the principals from channels named in `names`. Removing
 * anyone but oneself (or one's own bots) needs permission on every channel.
 */
export async function checkUnsubscribe(
  app: App,
  actor: UserRow,
  names: readonly string[],
  principals: readonly Principal[] | undefined,
): Promise<UnsubscribeResult> {
  return app.db.transaction(async (tx) =>
    doUnsubscribeRequest(app, tx, await loadWorld(app, tx.knex, actor.realm_id), actor, names, principals),
  );
}

export type UnsubscribeResult = { removed: string[]; not_removed: string[] };

/** checkUnsubscribe's work inside the caller's transaction, against `world`. */
async function doUnsubscribeRequest(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  actor: UserRow,
  names: readonly string[],
  principals: readonly Principal[] | undefined,
): Promise<UnsubscribeResult> {
  const users =
    principals && principals.length > 0 ? resolvePrincipals(app.config, world, actor, principals) : [actor];
  const unsubscribingOthers = users.some((u) => u.id !== actor.id && u.bot_owner_id !== actor.id);
  const stripped = names.map((n) => n.trim());
  for (const name of stripped) checkChannelName(name);
  const found = new Map<number, ChannelRow>();
  const missing: string[] = [];
  for (const name of stripped) {
    const channel = world.channels.channelByName(name);
    if (channel) found.set(channel.id, channel);
    else missing.push(name);
  }
  const channels = [...found.values()];
  if (unsubscribingOthers && !canRemoveSubscribers(world, actor, channels)) throw insufficientPermission();
  if (missing.length > 0) throw badRequest(`Channel(s) (${missing.join(", ")}) do not exist`);
  const { removed, notRemoved } = await doRemoveSubscriptions(app, tx, world, channels, users);
  return {
    removed: removed.map((c) => c.channel.name),
    not_removed: notRemoved.map((c) => c.channel.name),
  };
}

// ---- PATCH /users/me/subscriptions ----

/**
 * Subscribes and unsubscribes in one transaction (Zulip's update_subscriptions_backend,
 * which composes the two views): the request's other parameters apply as they would
 * to POST and DELETE (`principals` to both), the responses merge, and an error in
 * either half undoes both.
 */
export async function checkUpdateSubscriptions(
  app: App,
  actor: UserRow,
  req: SubscribeRequest & { delete: readonly string[] },
): Promise<SubscribeResult & UnsubscribeResult> {
  if (req.subscriptions.length === 0 && req.delete.length === 0) {
    throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  }
  const adding = req.subscriptions.length > 0;
  if (adding) {
    if (isGuestRole(actor.role)) throw notAllowedForGuests();
    for (const sub of req.subscriptions) {
      if (sub.color !== undefined) checkColor(sub.color, "add.color");
    }
  }
  return app.db.transaction(async (tx) => {
    // Zulip subscribes even to nothing: the response has the add half's fields anyway.
    const added: SubscribeResult = adding
      ? await doSubscribeRequest(app, tx, actor, req)
      : {
          subscribed: {},
          already_subscribed: {},
          ...(req.send_new_subscription_messages ? { new_subscription_messages_sent: true } : {}),
          ...(req.authorization_errors_fatal ? {} : { unauthorized: [] }),
        };
    if (req.delete.length === 0) return { ...added, removed: [], not_removed: [] };
    // The cached channels predate what the add half wrote.
    const world: ChannelWorld = {
      realm: await app.realms.get(tx.knex, actor.realm_id),
      channels: adding
        ? await app.channels.fresh(tx.knex, actor.realm_id)
        : (await loadWorld(app, tx.knex, actor.realm_id)).channels,
    };
    const removed = await doUnsubscribeRequest(app, tx, world, actor, req.delete, req.principals);
    return { ...added, ...removed };
  });
}

// ---- POST /users/me/subscriptions/properties ----

const BOOLEAN_PROPERTIES = [
  "is_muted",
  "in_home_view",
  "pin_to_top",
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
  "wildcard_mentions_notify",
] as const;
/** Notification settings: null means "inherit the user's default". */
const INHERITABLE: ReadonlySet<string> = new Set([
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
  "wildcard_mentions_notify",
]);

export interface SubscriptionPropertyChange {
  stream_id: number;
  property: string;
  value: unknown;
}

type ValidChange = { stream_id: number; property: string; value: string | boolean | null };

function validatePropertyChange(change: SubscriptionPropertyChange): ValidChange {
  const { property, value } = change;
  if (property === "color") {
    if (typeof value !== "string") throw badRequest("color is not a string");
    return { stream_id: change.stream_id, property, value: checkColor(value, "color") };
  }
  if ((BOOLEAN_PROPERTIES as readonly string[]).includes(property)) {
    if (value === null && INHERITABLE.has(property)) return { stream_id: change.stream_id, property, value };
    if (typeof value !== "boolean") throw badRequest(`${property} is not a boolean`);
    return { stream_id: change.stream_id, property, value };
  }
  throw badRequest(`Unknown subscription property: ${property}`);
}

/**
 * Changes the caller's own settings of subscriptions: all validated first, then applied
 * in one transaction. Each change is an event to the caller alone.
 */
export async function checkUpdateSubscriptionProperties(
  app: App,
  actor: UserRow,
  changes: readonly SubscriptionPropertyChange[],
): Promise<void> {
  const valid = changes.map(validatePropertyChange);
  await app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, actor.realm_id);
    const realmId = actor.realm_id;
    for (const change of valid) {
      const channel = accessChannelById(world, actor, change.stream_id, { allowArchived: true });
      const sub = world.channels.subscription(actor.id, channel.id);
      if (!sub || !bool(sub.active)) throw badRequest(`Not subscribed to channel ID ${channel.id}`);
      const send = (property: string, value: unknown) =>
        tx.sendEventOnCommit(realmId, subscriptionEvents.update(channel.id, property, value), [actor.id]);
      if (change.property === "is_muted" || change.property === "in_home_view") {
        const muted = change.property === "is_muted" ? change.value === true : change.value === false;
        await tx.knex("subscriptions").where({ id: sub.id }).update({ is_muted: muted });
        send("in_home_view", !muted);
        send("is_muted", muted);
      } else {
        await tx
          .knex("subscriptions")
          .where({ id: sub.id })
          .update({ [change.property]: change.value });
        send(change.property, change.value);
      }
    }
    invalidateChannels(app, tx, realmId);
  });
}
