import type { App } from "../app.js";
import type { ChannelRow } from "../db/channel-rows.js";
import type { UserRow } from "../db/rows.js";
import { bulkInsert } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import type { PropagateMode, VisibilityPolicy } from "../wire/events.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { VISIBILITY, mutedTopicsByUser, topicPolicies } from "../lib/user-topics.js";
import {
  accessChannelById,
  accessChannelByName,
  canAccessChannelContent,
  canAccessChannelHistory,
  type ChannelWorld,
} from "../permissions/channel-access.js";
import { mutedTopicsEvent, userTopicEvent } from "../presenters/events/user-topics.js";
import type { RealmSnapshot } from "../world/realm.js";
import { loadWorld } from "../cache/world.js";

/**
 * A user's visibility policy per topic (Zulip's UserTopic): muted, unmuted (in a muted
 * channel), followed, or none. Topics match case-insensitively; a row keeps the topic's
 * spelling from when it was first set.
 */

const CHUNK = 500;

/**
 * Sets users' policy for one topic (Zulip's bulk_do_set_user_topic_visibility_policy).
 * Only users whose row changes are written and told: the legacy muted_topics list (unless
 * skipped), then user_topic. Returns their IDs.
 */
export async function doSetTopicVisibility(
  tx: Tx,
  realm: RealmSnapshot,
  userIds: readonly number[],
  channel: ChannelRow,
  topic: string,
  policy: VisibilityPolicy,
  options: { skipMutedTopicsEvent?: boolean } = {},
): Promise<number[]> {
  const users = [...new Set(userIds)];
  if (users.length === 0) return [];
  const existing = await topicPolicies(tx.knex, channel.id, topic);
  const where = { stream_id: channel.id, topic_key: topic.toLowerCase() };
  let changed: number[];
  if (policy === VISIBILITY.INHERIT) {
    changed = users.filter((id) => existing.has(id));
    for (let i = 0; i < changed.length; i += CHUNK) {
      await tx
        .knex("user_topics")
        .where(where)
        .whereIn("user_id", changed.slice(i, i + CHUNK))
        .delete();
    }
  } else {
    const fresh = users.filter((id) => !existing.has(id));
    const updated = users.filter((id) => existing.has(id) && existing.get(id)!.visibility_policy !== policy);
    await bulkInsert(
      tx.knex,
      "user_topics",
      ["user_id", "stream_id", "topic_name", "topic_key", "visibility_policy", "last_updated"],
      fresh.map((id) => [id, channel.id, topic, where.topic_key, policy, tx.now]),
    );
    for (let i = 0; i < updated.length; i += CHUNK) {
      await tx
        .knex("user_topics")
        .where(where)
        .whereIn("user_id", updated.slice(i, i + CHUNK))
        .update({ visibility_policy: policy, last_updated: tx.now });
    }
    changed = [...fresh, ...updated];
  }
  const emptyName = emptyTopicDisplayName(realm.realm);
  const muted = options.skipMutedTopicsEvent ? null : await mutedTopicsByUser(tx.knex, changed);
  for (const userId of changed) {
    if (muted) tx.sendEventOnCommit(realm.id, mutedTopicsEvent(muted.get(userId)!, emptyName), [userId]);
    tx.sendEventOnCommit(realm.id, userTopicEvent(channel.id, topic, policy, tx.now, emptyName), [userId]);
  }
  return changed;
}

/** The realm's name for the empty topic means the empty topic. */
const topicOf = (realm: RealmSnapshot, topic: string) =>
  topic === emptyTopicDisplayName(realm.realm) ? "" : topic;

/**
 * Removing a policy needs only the channel to exist in the realm (archived or no longer
 * accessible included): users may always drop what they set (Zulip's
 * access_stream_to_remove_visibility_policy_by_id).
 */
function channelOfRealm(world: ChannelWorld, user: UserRow, channel: ChannelRow | undefined, error: string) {
  if (!channel || channel.realm_id !== user.realm_id) throw badRequest(error);
  return channel;
}

/** POST /user_topics: setting a policy needs access to the channel's content. */
export async function checkSetUserTopic(
  app: App,
  user: UserRow,
  request: { streamId: number; topic: string; policy: VisibilityPolicy },
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, user.realm_id);
    const channel =
      request.policy === VISIBILITY.INHERIT
        ? channelOfRealm(world, user, world.channels.channel(request.streamId), "Invalid channel ID")
        : accessChannelById(world, user, request.streamId);
    await doSetTopicVisibility(
      tx,
      world.realm,
      [user.id],
      channel,
      topicOf(world.realm, request.topic),
      request.policy,
    );
  });
}

/**
 * PATCH /users/me/subscriptions/muted_topics (legacy): mute (`add`) or drop the policy
 * (`remove`) of a topic named by channel ID or name. Muting a muted topic or unmuting one
 * that is not changes nothing (Zulip 7.0 and later).
 */
export async function checkUpdateMutedTopic(
  app: App,
  user: UserRow,
  request: { streamId?: number; streamName?: string; topic: string; op: "add" | "remove" },
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, user.realm_id);
    let channel: ChannelRow;
    if (request.op === "add") {
      channel =
        request.streamName !== undefined
          ? accessChannelByName(world, user, request.streamName)
          : accessChannelById(world, user, request.streamId!);
    } else {
      const found =
        request.streamName !== undefined
          ? world.channels.channelByName(request.streamName)
          : world.channels.channel(request.streamId!);
      channel = channelOfRealm(world, user, found, "Topic is not muted");
    }
    const policy = request.op === "add" ? VISIBILITY.MUTED : VISIBILITY.INHERIT;
    await doSetTopicVisibility(
      tx,
      world.realm,
      [user.id],
      channel,
      topicOf(world.realm, request.topic),
      policy,
    );
  });
}

// ---- topic moves ----

/** Does the topic have messages (before a move brings others into it)? */
export async function topicHasMessages(tx: Tx, channelId: number, topic: string): Promise<boolean> {
  const row = await tx
    .knex("messages")
    .where({ stream_id: channelId, topic_key: topic.toLowerCase() })
    .first<{ id: number } | undefined>("id");
  return row !== undefined;
}

/** Zulip's get_visibility_policy_after_merge: the more visible policy wins. */
function mergedPolicy(a: VisibilityPolicy, b: VisibilityPolicy): VisibilityPolicy {
  const both = [a, b];
  if (both.includes(VISIBILITY.FOLLOWED)) return VISIBILITY.FOLLOWED;
  if (both.includes(VISIBILITY.UNMUTED)) return VISIBILITY.UNMUTED;
  if (both.includes(VISIBILITY.INHERIT)) return VISIBILITY.INHERIT;
  return VISIBILITY.MUTED;
}

export interface TopicMove {
  source: ChannelRow;
  sourceTopic: string;
  target: ChannelRow;
  targetTopic: string;
  mode: PropagateMode;
  /** Whether the target topic had messages before the move (topicHasMessages). */
  targetHadMessages: boolean;
}

/**
 * Carries the visibility policies of a moved topic to where it went, as Zulip's
 * do_update_message does, once the messages have moved. Only when the whole topic moved:
 * change_all, or nothing the mover can see is left behind. Users who cannot read the
 * target channel lose their policy; the others' move, merged with what they had for the
 * target topic if it already had messages, and otherwise replacing it.
 */
export async function doCarryTopicVisibility(
  tx: Tx,
  world: ChannelWorld,
  mover: UserRow,
  move: TopicMove,
): Promise<void> {
  const { source, sourceTopic, target, targetTopic } = move;
  // Same channel, same topic but for case: the policies already apply.
  if (source.id === target.id && sourceTopic.toLowerCase() === targetTopic.toLowerCase()) return;
  if (move.mode !== "change_all" && !(await nothingVisibleLeft(tx, world, mover, source, sourceTopic)))
    return;

  const { realm } = world;
  const origin = await topicPolicies(tx.knex, source.id, sourceTopic);
  const destination = await topicPolicies(tx.knex, target.id, targetTopic);
  const mayRead = (userId: number) => {
    const user = realm.user(userId);
    return user !== undefined && canAccessChannelContent(world, user, target);
  };
  const losing: number[] = [];
  const originPolicy = new Map<number, VisibilityPolicy>();
  for (const [userId, row] of origin) {
    if (source.id !== target.id && !mayRead(userId)) losing.push(userId);
    else originPolicy.set(userId, row.visibility_policy);
  }
  await doSetTopicVisibility(tx, realm, losing, source, sourceTopic, VISIBILITY.INHERIT);

  // Users grouped by (policy at the origin, policy at the target), as Zulip does.
  const pairs = new Map<string, { from: VisibilityPolicy; to: VisibilityPolicy; userIds: number[] }>();
  for (const userId of new Set([...originPolicy.keys(), ...destination.keys()])) {
    const from = originPolicy.get(userId) ?? VISIBILITY.INHERIT;
    const to = destination.get(userId)?.visibility_policy ?? VISIBILITY.INHERIT;
    const key = `${from}:${to}`;
    const pair = pairs.get(key);
    if (pair) pair.userIds.push(userId);
    else pairs.set(key, { from, to, userIds: [userId] });
  }
  for (const { from, to, userIds } of pairs.values()) {
    const next = move.targetHadMessages ? mergedPolicy(from, to) : from;
    if (from !== VISIBILITY.INHERIT) {
      // When the target changes too, its muted_topics event carries the final list.
      await doSetTopicVisibility(tx, realm, userIds, source, sourceTopic, VISIBILITY.INHERIT, {
        skipMutedTopicsEvent: next !== to,
      });
    }
    if (next !== to) await doSetTopicVisibility(tx, realm, userIds, target, targetTopic, next);
  }
}

/** After a partial move: does the mover see no message left in the source topic? */
async function nothingVisibleLeft(
  tx: Tx,
  world: ChannelWorld,
  mover: UserRow,
  source: ChannelRow,
  topic: string,
): Promise<boolean> {
  const query = tx
    .knex("messages as m")
    .where({ "m.stream_id": source.id, "m.topic_key": topic.toLowerCase() });
  if (!canAccessChannelHistory(world, mover, source))
    query.join("user_messages as um", "um.message_id", "m.id").where("um.user_id", mover.id);
  return (await query.first<{ id: number } | undefined>("m.id")) === undefined;
}
