import type { Knex } from "knex";
import { bool } from "../db/rows.js";
import { RECIPIENT_TYPE } from "../db/channel-rows.js";
import type { ChannelWorld } from "../permissions/channel-access.js";
import { groupMembersById } from "./direct-message-groups.js";
import { MESSAGE_FLAG_BITS } from "./message-flags.js";

/** Zulip's MAX_UNREAD_MESSAGES: register reports at most this many unread messages. */
export const MAX_UNREAD_MESSAGES = 50_000;

const VISIBILITY = { MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;
const WILDCARD_BITS =
  MESSAGE_FLAG_BITS.stream_wildcard_mentioned | MESSAGE_FLAG_BITS.topic_wildcard_mentioned;

/** What the unread bookkeeping needs to know of one of the user's messages. */
export interface UnreadRow {
  id: number;
  flags: number;
  sender_id: number;
  stream_id: number | null;
  topic: string;
  recipient_type: number;
  recipient_type_id: number;
}

/** Where a message is, as clients file it: a channel topic, a 1:1 DM or a group DM. */
export type Conversation =
  | { kind: "stream"; streamId: number; topic: string; unmuted: boolean }
  | { kind: "private"; otherUserId: number; userIds: number[] }
  | { kind: "huddle"; userIds: number[] };

/**
 * The user's messages among `messageIds` (or, without IDs, the newest unread ones),
 * with their conversations, in three queries whatever their number.
 */
export async function loadUnreadRows(
  knex: Knex,
  userId: number,
  messageIds?: readonly number[],
): Promise<UnreadRow[]> {
  const query = knex("user_messages as um")
    .join("messages as m", "m.id", "um.message_id")
    .join("recipients as r", "r.id", "m.recipient_id")
    .where("um.user_id", userId)
    .select<UnreadRow[]>(
      "m.id",
      "um.flags",
      "m.sender_id",
      "m.stream_id",
      "m.topic",
      "r.type as recipient_type",
      "r.type_id as recipient_type_id",
    );
  if (messageIds) query.whereIn("um.message_id", messageIds);
  else
    query
      .whereRaw(`(um.flags & ${MESSAGE_FLAG_BITS.read}) = 0`)
      .orderBy("um.message_id", "desc")
      .limit(MAX_UNREAD_MESSAGES);
  return query;
}

/** Resolves rows to conversations: group DM members and channel/topic muting. */
export async function conversationsOf(
  knex: Knex,
  world: ChannelWorld,
  userId: number,
  rows: readonly UnreadRow[],
): Promise<Map<number, Conversation>> {
  const members = await groupMembersById(
    knex,
    rows
      .filter((r) => r.recipient_type === RECIPIENT_TYPE.DIRECT_MESSAGE_GROUP)
      .map((r) => r.recipient_type_id),
  );
  const channelIds = [...new Set(rows.flatMap((r) => (r.stream_id === null ? [] : [r.stream_id])))];
  const policies =
    channelIds.length === 0
      ? []
      : await knex("user_topics")
          .where("user_id", userId)
          .whereIn("stream_id", channelIds)
          .select<Array<{ stream_id: number; topic_key: string; visibility_policy: number }>>(
            "stream_id",
            "topic_key",
            "visibility_policy",
          );
  const policy = new Map(policies.map((p) => [`${p.stream_id}\u0000${p.topic_key}`, p.visibility_policy]));

  const result = new Map<number, Conversation>();
  for (const row of rows) {
    if (row.stream_id !== null) {
      const topicPolicy = policy.get(`${row.stream_id}\u0000${row.topic.toLowerCase()}`);
      const channelMuted = bool(world.channels.subscription(userId, row.stream_id)?.is_muted);
      const unmuted = channelMuted
        ? topicPolicy === VISIBILITY.UNMUTED || topicPolicy === VISIBILITY.FOLLOWED
        : topicPolicy !== VISIBILITY.MUTED;
      result.set(row.id, { kind: "stream", streamId: row.stream_id, topic: row.topic, unmuted });
    } else if (row.recipient_type === RECIPIENT_TYPE.DIRECT_MESSAGE_GROUP) {
      result.set(row.id, { kind: "huddle", userIds: members.get(row.recipient_type_id) ?? [] });
    } else {
      // To the user: the other participant is the sender (oneself for a self-DM);
      // sent by the user: the recipient.
      const other = row.recipient_type_id === userId ? row.sender_id : row.recipient_type_id;
      result.set(row.id, { kind: "private", otherUserId: other, userIds: [other] });
    }
  }
  return result;
}

const isMention = (flags: number, unmuted: boolean) =>
  (flags & MESSAGE_FLAG_BITS.mentioned) !== 0 || ((flags & WILDCARD_BITS) !== 0 && unmuted);

/** register's `unread_msgs`, in Zulip's shape (aggregate_unread_data). */
export async function unreadMessages(knex: Knex, world: ChannelWorld, userId: number) {
  const all = await loadUnreadRows(knex, userId);
  // Unread messages of channels the user left are not reported.
  const rows = all.filter((r) => r.stream_id === null || world.channels.isSubscribed(userId, r.stream_id));
  const conversations = await conversationsOf(knex, world, userId, rows);
  const pms = new Map<number, number[]>();
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const huddles = new Map<string, number[]>();
  const mentions: number[] = [];
  let count = 0;
  for (const row of [...rows].sort((a, b) => a.id - b.id)) {
    const c = conversations.get(row.id)!;
    if (c.kind === "stream") {
      const key = `${c.streamId}\u0000${c.topic}`;
      let entry = streams.get(key);
      if (!entry)
        streams.set(key, (entry = { stream_id: c.streamId, topic: c.topic, unread_message_ids: [] }));
      entry.unread_message_ids.push(row.id);
      if (c.unmuted) count++;
      if (isMention(row.flags, c.unmuted)) mentions.push(row.id);
      continue;
    }
    count++;
    if (isMention(row.flags, true)) mentions.push(row.id);
    if (c.kind === "private") {
      const list = pms.get(c.otherUserId) ?? [];
      pms.set(c.otherUserId, [...list, row.id]);
    } else {
      const key = c.userIds.join(",");
      huddles.set(key, [...(huddles.get(key) ?? []), row.id]);
    }
  }
  return {
    pms: [...pms]
      .sort(([a], [b]) => a - b)
      .map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: [...streams.values()].sort((a, b) => a.stream_id - b.stream_id || (a.topic < b.topic ? -1 : 1)),
    huddles: [...huddles]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions,
    count,
    old_unreads_missing: all.length === MAX_UNREAD_MESSAGES,
  };
}

/**
 * update_message_flags' `message_details` for messages marked unread: what a client needs
 * to file each one back into its unread counts (format_unread_message_details).
 */
export function unreadMessageDetails(
  userId: number,
  rows: readonly UnreadRow[],
  conversations: ReadonlyMap<number, Conversation>,
): Record<string, Record<string, unknown>> {
  const details: Record<string, Record<string, unknown>> = {};
  for (const row of rows) {
    const c = conversations.get(row.id)!;
    const mentioned = isMention(row.flags, c.kind !== "stream" || c.unmuted) ? { mentioned: true } : {};
    details[String(row.id)] =
      c.kind === "stream"
        ? {
            type: "stream",
            stream_id: c.streamId,
            topic: c.topic,
            unmuted_stream_msg: c.unmuted,
            ...mentioned,
          }
        : {
            type: "private",
            user_ids: c.userIds.filter((id) => id !== userId).sort((a, b) => a - b),
            ...mentioned,
          };
  }
  return details;
}
