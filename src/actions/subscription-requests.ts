import type { App } from "../app.js";
import { loadWorld } from "../cache/world.js";
import type { ChannelRow } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest, insufficientPermission, notAllowedForGuests } from "../errors.js";
import { resolvePrincipals, type Principal } from "../lib/access-users.js";
import {
  validateChannelName,
  validateColor,
  normalizeChannelDescription,
} from "../lib/channel-validation.js";
import { LIMITS } from "../lib/realm-limits.js";
import {
  canAccessChannelContent,
  canAddSubscribers,
  canRemoveSubscribers,
  isArchived,
  type ChannelWorld,
} from "../permissions/channel-access.js";
import { isGuestRole } from "../world/roles.js";
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
  validateFolderId,
  requireTopicsPolicyPermission,
  doAddDefaultChannels,
  doCreateChannel,
  prepareChannelCreation,
  type ChannelCreationParams,
} from "./channels.js";
import {
  doAddSubscriptions,
  doRemoveSubscriptions,
  groupBy,
  type SubscriptionChange,
} from "./subscriptions.js";

/**
 * POST, DELETE and PATCH /users/me/subscriptions: subscribing and unsubscribing the
 * caller or others by channel name, creating missing channels.
 */

// ---- POST /users/me/subscriptions ----

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
    if (sub.color !== undefined) validateColor(sub.color, `subscriptions[${i}]["color"]`);
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
    validateFolderId(world.channels, req.creation.folder_id);
  }
  const colors = new Map<string, string>();
  const wanted: Array<{ name: string; description: string }> = [];
  for (const sub of req.subscriptions) {
    const name = sub.name.trim();
    if (sub.color !== undefined) colors.set(name, sub.color);
    wanted.push({ name, description: normalizeChannelDescription(sub.description ?? "") });
    requireTopicsPolicyPermission(world.realm, actor, req.creation.topics_policy);
  }
  const principals = req.principals ?? [];
  const subscribingOthers = principals.length > 0 && !principals.every((p) => p === actor.id);

  // Zulip's list_to_streams: names, then existing vs. missing, then creation.
  for (const { name } of wanted) validateChannelName(name);
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
  const users = subscribingOthers ? resolvePrincipals(app.config, world.realm, actor, principals) : [actor];
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
    principals && principals.length > 0
      ? resolvePrincipals(app.config, world.realm, actor, principals)
      : [actor];
  const unsubscribingOthers = users.some((u) => u.id !== actor.id && u.bot_owner_id !== actor.id);
  const stripped = names.map((n) => n.trim());
  for (const name of stripped) validateChannelName(name);
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
      if (sub.color !== undefined) validateColor(sub.color, "add.color");
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
