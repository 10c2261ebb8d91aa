import type { Knex } from "knex";
import { RECIPIENT_TYPE } from "../db/channel-rows.js";
import { wantsType, type StateContext } from "./state-context.js";
import { MESSAGE_FLAG_BITS } from "../lib/message-flags.js";
import { groupMembersById } from "../lib/direct-message-groups.js";
import { unreadMessages } from "../lib/unread.js";
import { maxMessageIdForUser } from "../lib/user-messages.js";
import { hasCapability } from "../wire/events.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";

/** Zulip's RECENT_CONVERSATIONS_LIMIT: how many of the newest direct messages are scanned. */
export const RECENT_CONVERSATIONS_LIMIT = 1000;

/**
 * The `message` fetch type: the newest message the user has (-1 if none). The user-state
 * cache's value, when it had one as the snapshot was pinned (it follows the committed
 * event stream, so it equals the snapshot's max then); else one query of the snapshot.
 */
export async function fetchMessageState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { max_message_id: ctx.maxMessageId ?? (await maxMessageIdForUser(ctx.knex, ctx.user.id)) };
}

export interface RecentConversation {
  max_message_id: number;
  /** Participants other than the user, ascending; empty for messages to oneself. */
  user_ids: number[];
}

/**
 * Zulip's get_recent_private_conversations: the conversations of the user's newest
 * direct messages, most recent first. Three queries whatever the number of messages.
 */
export async function recentPrivateConversations(knex: Knex, userId: number): Promise<RecentConversation[]> {
  const messages = await knex("user_messages as um")
    .join("messages as m", "m.id", "um.message_id")
    .where("um.user_id", userId)
    .whereRaw(`(um.flags & ${MESSAGE_FLAG_BITS.is_private}) <> 0`)
    .orderBy("um.message_id", "desc")
    .limit(RECENT_CONVERSATIONS_LIMIT)
    .select<Array<{ id: number; sender_id: number; recipient_id: number }>>(
      "m.id",
      "m.sender_id",
      "m.recipient_id",
    );
  if (messages.length === 0) return [];
  const recipients = await knex("recipients")
    .whereIn("id", [...new Set(messages.map((m) => m.recipient_id))])
    .select<Array<{ id: number; type: number; type_id: number }>>("id", "type", "type_id");
  const recipientById = new Map(recipients.map((r) => [r.id, r]));
  const groupMembers = await groupMembersById(
    knex,
    recipients.filter((r) => r.type === RECIPIENT_TYPE.DIRECT_MESSAGE_GROUP).map((r) => r.type_id),
  );

  const byKey = new Map<string, RecentConversation>();
  for (const message of messages) {
    const recipient = recipientById.get(message.recipient_id);
    if (!recipient) continue;
    let others: number[];
    if (recipient.type === RECIPIENT_TYPE.DIRECT_MESSAGE_GROUP) {
      others = (groupMembers.get(recipient.type_id) ?? []).filter((id) => id !== userId);
    } else if (recipient.type_id === userId) {
      // To the user: from someone else, or to oneself.
      others = message.sender_id === userId ? [] : [message.sender_id];
    } else {
      others = [recipient.type_id];
    }
    others.sort((a, b) => a - b);
    const key = others.join(",");
    const known = byKey.get(key);
    if (known) known.max_message_id = Math.max(known.max_message_id, message.id);
    else byKey.set(key, { max_message_id: message.id, user_ids: others });
  }
  return [...byKey.values()].sort((a, b) => b.max_message_id - a.max_message_id);
}

/** The `recent_private_conversations` fetch type. */
export async function fetchRecentPrivateConversationsState(
  ctx: StateContext,
): Promise<Record<string, unknown>> {
  return { recent_private_conversations: await recentPrivateConversations(ctx.knex, ctx.user.id) };
}

/**
 * `unread_msgs`, for `update_message_flags` and `message` together, as Zulip: keeping
 * unread counts current needs both the flag updates and the new messages.
 */
export async function fetchUnreadState(ctx: StateContext): Promise<Record<string, unknown>> {
  if (!wantsType(ctx, "message")) return {};
  const unread = await unreadMessages(ctx.knex, ctx.world, ctx.user.id);
  if (hasCapability(ctx.options, "empty_topic_name")) return { unread_msgs: unread };
  // Clients without empty_topic_name know the empty topic by the realm's name for it.
  const name = emptyTopicDisplayName(ctx.realm.realm);
  const streams = unread.streams
    .map((s) => (s.topic === "" ? { ...s, topic: name } : s))
    .sort((a, b) => a.stream_id - b.stream_id || (a.topic < b.topic ? -1 : 1));
  return { unread_msgs: { ...unread, streams } };
}

/** Zulip's limit on starred_messages. */
export const MAX_STARRED_MESSAGES = 10_000;

/** The `starred_messages` fetch type: the user's starred message IDs, oldest first. */
export async function fetchStarredMessagesState(ctx: StateContext): Promise<Record<string, unknown>> {
  const ids = await ctx
    .knex("user_messages")
    .where("user_id", ctx.user.id)
    .whereRaw(`(flags & ${MESSAGE_FLAG_BITS.starred}) <> 0`)
    .orderBy("message_id")
    .limit(MAX_STARRED_MESSAGES)
    .pluck<number[]>("message_id");
  return { starred_messages: ids };
}
