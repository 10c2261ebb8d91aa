import type { App } from "../app.js";
import { nowSeconds } from "../clock.js";
import { bool, type DbBigInt, type UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { directConversation } from "../lib/direct-message-groups.js";
import { accessMessageToChange } from "../lib/message-access.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { accessChannelById } from "../permissions/channel-access.js";
import type { RealmSnapshot } from "../world/realm.js";
import { loadWorld } from "../cache/world.js";
import { typingEvents } from "../presenters/events/typing.js";
import { requireCanEditContent } from "./message-edit.js";

/** Typing notifications: ephemeral events, published at once and never stored. */

export type TypingOp = "start" | "stop";

/** Zulip's MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS: larger channels get no typing events. */
const MAX_CHANNEL_SIZE_FOR_TYPING = 100;

/** Typing in a channel topic, to the channel's other subscribers (small channels only). */
export async function sendChannelTyping(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  op: TypingOp,
  channelId: number,
  topic: string,
): Promise<void> {
  if (!bool(user.send_stream_typing_notifications)) {
    throw badRequest("User has disabled typing notifications for channel messages");
  }
  const sender = { user_id: user.id, email: user.email };
  const world = await loadWorld(app, app.knex, realm);
  const channel = accessChannelById(world, user, channelId);
  const subscribers = world.channels.activeSubscriberIds(realm, channel.id);
  if (subscribers.length <= MAX_CHANNEL_SIZE_FOR_TYPING) {
    app.db.publish(
      realm.id,
      typingEvents.channel(op, sender, channel.id, topic, emptyTopicDisplayName(realm.realm)),
      subscribers.filter((id) => id !== user.id && receivesTyping(realm, id)),
    );
  }
}

/** Users who turned off receives_typing_notifications get no typing events. */
const receivesTyping = (realm: RealmSnapshot, userId: number) =>
  bool(realm.user(userId)?.receives_typing_notifications);

/** Typing in a direct conversation, to every participant, the sender included. */
export function sendDirectTyping(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  op: TypingOp,
  to: readonly number[],
): void {
  if (to.length === 0) throw badRequest("Empty 'to' list");
  if (!bool(user.send_private_typing_notifications)) {
    throw badRequest("User has disabled typing notifications for direct messages");
  }
  const sender = { user_id: user.id, email: user.email };
  const recipients = [];
  for (const id of to) {
    const target = realm.user(id);
    if (!target || !bool(target.is_active)) throw badRequest(`Invalid user ID ${id}`);
    recipients.push({ user_id: target.id, email: target.email });
  }
  if (!recipients.some((r) => r.user_id === user.id)) recipients.push(sender);
  app.db.publish(
    realm.id,
    typingEvents.direct(op, sender, recipients),
    recipients.map((r) => r.user_id).filter((id) => receivesTyping(realm, id)),
  );
}

/**
 * Typing in a message edit (POST /messages/{id}/typing, Zulip's
 * send_message_edit_notification_backend): for someone who may edit the message's
 * content now, to who would see the edit: a channel's subscribers (small channels
 * only), or the conversation's active participants.
 */
export async function sendMessageEditTyping(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  op: TypingOp,
  messageId: number,
): Promise<void> {
  const world = await loadWorld(app, app.knex, realm);
  const head = await accessMessageToChange({ knex: app.knex, world, user }, messageId);
  const message = await app
    .knex("messages")
    .where({ id: head.id })
    .first<{ sender_id: number; recipient_id: number; date_sent: DbBigInt }>(
      "sender_id",
      "recipient_id",
      "date_sent",
    );
  requireCanEditContent(realm, user, message, nowSeconds(app.clock), 0);
  if (head.stream_id !== null) {
    if (!bool(user.send_stream_typing_notifications)) {
      throw badRequest("User has disabled typing notifications for channel messages");
    }
    const subscribers = world.channels.activeSubscriberIds(realm, head.stream_id);
    if (subscribers.length > MAX_CHANNEL_SIZE_FOR_TYPING) return;
    const recipient = { type: "channel" as const, channel_id: head.stream_id, topic: head.topic };
    const event = typingEvents.editMessage(
      op,
      user.id,
      head.id,
      recipient,
      emptyTopicDisplayName(realm.realm),
    );
    app.db.publish(
      realm.id,
      event,
      subscribers.filter((id) => receivesTyping(realm, id)),
    );
    return;
  }
  if (!bool(user.send_private_typing_notifications)) {
    throw badRequest("User has disabled typing notifications for direct messages");
  }
  const conversation = await directConversation(app.knex, message.recipient_id);
  const participants =
    conversation?.type === "group" ? conversation.userIds : [user.id, conversation?.userId ?? user.id];
  const userIds = [...new Set(participants)].filter((id) => {
    const participant = realm.user(id);
    return participant !== undefined && bool(participant.is_active);
  });
  const recipient = { type: "direct" as const, user_ids: userIds };
  const event = typingEvents.editMessage(op, user.id, head.id, recipient, emptyTopicDisplayName(realm.realm));
  app.db.publish(
    realm.id,
    event,
    userIds.filter((id) => receivesTyping(realm, id)),
  );
}
