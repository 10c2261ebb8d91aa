import type { App } from "../app-context.js";
import { RECIPIENT_TYPE, type ChannelRow } from "../db/channel-rows.js";
import { insertReturningId } from "../db/insert.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { channelViewerIds } from "../lib/channel-access.js";
import { MESSAGE_FLAG_BITS, flagNames } from "../lib/message-flags.js";
import type { RealmSnapshot } from "../lib/realm-cache.js";
import {
  displayRecipientUser,
  messageEvent,
  presentMessage,
  type DisplayRecipientUser,
  type MessageRow,
} from "../presenters/messages.js";
import { emptyTopicDisplayName } from "../presenters/realm.js";
import { renderMarkdown } from "../render/markdown.js";

/**
 * The core of sending a message: insert it, give every recipient a user_messages row,
 * and tell them. Checks (who may post where) are the caller's; the messages feature
 * adds its own on top. Internal notices (Notification Bot) come through here.
 */

/** The client name of messages the server sends itself. */
export const INTERNAL_CLIENT = "Internal";

export interface ChannelMessageInput {
  sender: UserRow;
  channel: ChannelRow;
  topic: string;
  content: string;
  /** Sending client's name (`client` of the message). */
  client?: string;
  /** Users whose copy starts read, besides the sender (Zulip's mark_as_read). */
  markAsRead?: Iterable<number>;
  /** The realm as the caller's transaction sees it, if it changed groups in it. */
  realm?: RealmSnapshot;
}

export interface DirectMessageInput {
  sender: UserRow;
  recipient: UserRow;
  content: string;
  client?: string;
  markAsRead?: Iterable<number>;
}

const READ = MESSAGE_FLAG_BITS.read;
const PRIVATE = MESSAGE_FLAG_BITS.is_private;
const INSERT_CHUNK = 400;

async function insertMessage(
  tx: Tx,
  realmId: number,
  fields: Omit<MessageRow, "id" | "rendered_content" | "date_sent" | "is_me_message">,
): Promise<MessageRow> {
  const row = {
    ...fields,
    rendered_content: renderMarkdown(fields.content),
    date_sent: tx.now,
    is_me_message: fields.content.startsWith("/me "),
  };
  const id = await insertReturningId(tx.knex, "messages", {
    ...row,
    realm_id: realmId,
    topic_key: fields.topic.toLowerCase(),
  });
  return { ...row, id };
}

async function insertUserMessages(tx: Tx, messageId: number, flagsByUser: ReadonlyMap<number, number>) {
  const rows = [...flagsByUser].map(([user_id, flags]) => ({ user_id, message_id: messageId, flags }));
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await tx.knex("user_messages").insert(rows.slice(i, i + INSERT_CHUNK));
  }
}

function perUserFlags(flagsByUser: ReadonlyMap<number, number>) {
  const recipients = new Map<number, Record<string, unknown>>();
  for (const [userId, flags] of flagsByUser) recipients.set(userId, { flags: flagNames(flags) });
  return recipients;
}

/** Sends a message to a channel's topic; returns the new message's ID. */
export async function doSendMessage(app: App, tx: Tx, input: ChannelMessageInput): Promise<number> {
  const { sender, channel } = input;
  const realm = input.realm ?? (await app.cache.get(tx.knex, channel.realm_id));
  if (channel.recipient_id === null) throw new Error(`channel ${channel.id} has no recipient`);
  const row = await insertMessage(tx, channel.realm_id, {
    sender_id: sender.id,
    recipient_id: channel.recipient_id,
    stream_id: channel.id,
    topic: input.topic,
    content: input.content,
    sending_client: input.client ?? INTERNAL_CLIENT,
  });
  // Read through the transaction: subscriptions made earlier in it count.
  const subscriberIds = await tx
    .knex("subscriptions as s")
    .join("users as u", "u.id", "s.user_id")
    .where({ "s.stream_id": channel.id, "s.active": true, "u.is_active": true })
    .orderBy("s.user_id")
    .pluck<number[]>("s.user_id");
  const read = new Set([sender.id, ...(input.markAsRead ?? [])]);
  const flagsByUser = new Map(subscriberIds.map((id) => [id, read.has(id) ? READ : 0]));
  await insertUserMessages(tx, row.id, flagsByUser);

  if (channel.first_message_id === null) {
    const updated = await tx
      .knex("streams")
      .where({ id: channel.id })
      .whereNull("first_message_id")
      .update({ first_message_id: row.id });
    if (updated > 0) {
      tx.afterCommit(() => app.channels.invalidate(channel.realm_id));
      tx.sendEventOnCommit(
        channel.realm_id,
        {
          type: "stream",
          op: "update",
          stream_id: channel.id,
          name: channel.name,
          property: "first_message_id",
          value: row.id,
        },
        channelViewerIds(realm, channel, subscriberIds),
      );
    }
  }

  const message = presentMessage(row, {
    realmStr: realm.realm.string_id,
    sender,
    displayRecipient: channel.name,
  });
  tx.sendEventOnCommit(
    channel.realm_id,
    messageEvent(message, sender, emptyTopicDisplayName(realm.realm)),
    perUserFlags(flagsByUser),
  );
  return row.id;
}

/** The personal recipient of a user (direct messages to them), created on first use. */
async function personalRecipientId(tx: Tx, userId: number): Promise<number> {
  const where = { type: RECIPIENT_TYPE.PERSONAL, type_id: userId };
  const existing = await tx.knex("recipients").where(where).first<{ id: number } | undefined>("id");
  return existing?.id ?? insertReturningId(tx.knex, "recipients", where);
}

/** Sends a one-to-one direct message; returns the new message's ID. */
export async function doSendDirectMessage(app: App, tx: Tx, input: DirectMessageInput): Promise<number> {
  const { sender, recipient } = input;
  const realm = await app.cache.get(tx.knex, recipient.realm_id);
  const row = await insertMessage(tx, recipient.realm_id, {
    sender_id: sender.id,
    recipient_id: await personalRecipientId(tx, recipient.id),
    stream_id: null,
    topic: "",
    content: input.content,
    sending_client: input.client ?? INTERNAL_CLIENT,
  });
  const read = new Set([sender.id, ...(input.markAsRead ?? [])]);
  const flagsByUser = new Map<number, number>();
  for (const user of [sender, recipient]) {
    if (bool(user.is_active)) flagsByUser.set(user.id, PRIVATE | (read.has(user.id) ? READ : 0));
  }
  await insertUserMessages(tx, row.id, flagsByUser);
  const participants: DisplayRecipientUser[] = (sender.id === recipient.id ? [sender] : [sender, recipient])
    .map(displayRecipientUser)
    .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
  const message = presentMessage(row, {
    realmStr: realm.realm.string_id,
    sender,
    displayRecipient: participants,
  });
  tx.sendEventOnCommit(
    recipient.realm_id,
    messageEvent(message, sender, emptyTopicDisplayName(realm.realm)),
    perUserFlags(flagsByUser),
  );
  return row.id;
}
