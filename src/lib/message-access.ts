import type { Knex } from "knex";
import type { UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { isArchived, type ChannelWorld } from "../permissions/channel-access.js";
import { hasMessageAccess } from "../permissions/message-access.js";

/**
 * Fetching messages by ID for a user (Zulip's access_message): every endpoint that takes
 * a message ID goes through here. A missing message and a forbidden one give the same
 * error, so IDs cannot be probed.
 */

/** Who asks, and through which connection (the transaction's knex inside one). */
export interface MessageAccessScope {
  knex: Knex;
  world: ChannelWorld;
  user: UserRow;
}

/** A message as access checks fetch it. */
export interface AccessedMessage {
  id: number;
  sender_id: number;
  recipient_id: number;
  stream_id: number | null;
  topic: string;
  /** The user's flags, or null if it never received the message. */
  flags: number | null;
}

export const invalidMessage = () => badRequest("Invalid message(s)");

const CHUNK = 500;

/** The messages among `messageIds` the user may read, in ID order; the others are left out. */
export async function accessibleMessages(
  scope: MessageAccessScope,
  messageIds: readonly number[],
): Promise<AccessedMessage[]> {
  const { knex, world, user } = scope;
  const ids = [...new Set(messageIds)].sort((a, b) => a - b);
  const found: AccessedMessage[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await knex("messages as m")
      .leftJoin("user_messages as um", function () {
        this.on("um.message_id", "=", "m.id").andOn("um.user_id", "=", knex.raw("?", [user.id]));
      })
      .where("m.realm_id", user.realm_id)
      .whereIn("m.id", ids.slice(i, i + CHUNK))
      .orderBy("m.id")
      .select<AccessedMessage[]>(
        "m.id",
        "m.sender_id",
        "m.recipient_id",
        "m.stream_id",
        "m.topic",
        "um.flags",
      );
    for (const row of rows) if (hasMessageAccess(world, user, row, row.flags !== null)) found.push(row);
  }
  return found;
}

/** The message if the user may read it, else undefined. */
export async function accessibleMessage(
  scope: MessageAccessScope,
  messageId: number,
): Promise<AccessedMessage | undefined> {
  return (await accessibleMessages(scope, [messageId]))[0];
}

/** Zulip's access_message: the message, or "Invalid message(s)". */
export async function accessMessage(scope: MessageAccessScope, messageId: number): Promise<AccessedMessage> {
  const message = await accessibleMessage(scope, messageId);
  if (!message) throw invalidMessage();
  return message;
}

/**
 * Zulip's access_message(..., is_modifying_message=True), for acting on a message
 * (submessages, edit typing): as accessMessage, but never a message of an archived
 * channel, which stays readable and unchangeable.
 */
export async function accessMessageToChange(
  scope: MessageAccessScope,
  messageId: number,
): Promise<AccessedMessage> {
  const message = await accessMessage(scope, messageId);
  const channel = message.stream_id === null ? undefined : scope.world.channels.channel(message.stream_id);
  if (channel && isArchived(channel)) throw invalidMessage();
  return message;
}

/** Every one of the messages (in ID order), or "Invalid message(s)" if any is missing or forbidden. */
export async function accessMessages(
  scope: MessageAccessScope,
  messageIds: readonly number[],
): Promise<AccessedMessage[]> {
  const messages = await accessibleMessages(scope, messageIds);
  if (messages.length !== new Set(messageIds).size) throw invalidMessage();
  return messages;
}
