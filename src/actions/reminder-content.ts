import type { Knex } from "knex";
import { realmUrl, type Config } from "../config.js";
import type { UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { directConversation } from "../lib/direct-message-groups.js";
import {
  MAX_MESSAGE_LENGTH,
  TRUNCATION_NOTICE,
  pythonRstrip,
  truncateContent,
} from "../lib/message-content.js";
import { channelMessageUrl, directMessageUrl, messageLinkSyntax, unusedFence } from "../lib/message-links.js";
import { LIMITS } from "../lib/realm-limits.js";
import { codePointLength } from "../params.js";
import type { ChannelWorld } from "../permissions/channel-access.js";
import type { MessageRow } from "../presenters/messages.js";
import { silentMention } from "./channel-notices.js";

/**
 * The Notification Bot's reminder text (Zulip's zerver/lib/reminders.py): who said what,
 * where, with a link, and the message quoted (a poll or to-do list is only named).
 */

export const MAX_REMINDER_NOTE_LENGTH = LIMITS.max_reminder_note_length;

/** Zulip's normalize_note_text: trailing space and leading blank lines go; bounded. */
export function normalizeReminderNote(note: string): string {
  const body = pythonRstrip(note).replace(/^\n+/, "");
  if (codePointLength(body) > MAX_REMINDER_NOTE_LENGTH) {
    throw badRequest(`Maximum reminder note length: ${MAX_REMINDER_NOTE_LENGTH} characters`);
  }
  return body;
}

/** The message a reminder is about, as the formatter needs it. */
export type RemindedMessage = Pick<
  MessageRow,
  "id" | "sender_id" | "recipient_id" | "stream_id" | "topic" | "content"
>;

/** Zulip's get_user_mentions_for_display: "A", "A and B", "A, B, and C". */
const listOfMentions = (users: readonly UserRow[]) =>
  new Intl.ListFormat("en", { style: "long", type: "conjunction" }).format(users.map(silentMention));

const widgetOf = (content: string) =>
  content.startsWith("/poll") ? "poll" : content.startsWith("/todo") ? "todo list" : null;

/** Zulip's get_reminder_formatted_content, for a message the user may read. */
export async function reminderContent(
  config: Config,
  knex: Knex,
  world: ChannelWorld,
  message: RemindedMessage,
  note: string,
): Promise<string> {
  const { realm } = world;
  const sender = realm.userOrSystemBot(message.sender_id)!;
  const mention = silentMention(sender);
  const url = realmUrl(config);
  const channel = message.stream_id === null ? undefined : world.channels.channel(message.stream_id);
  const what = channel ? "message" : "direct message";
  let content = note
    ? `You requested a reminder for the following ${what}. Note:\n > ${note}`
    : `You requested a reminder for the following ${what}.`;
  content += "\n\n";

  let link: string;
  let where: string;
  if (channel) {
    link = channelMessageUrl(url, channel, message.topic, message.id);
    where = `in ${messageLinkSyntax(channel, message.topic, message.id)}`;
  } else {
    const conversation = await directConversation(knex, message.recipient_id);
    const participants =
      conversation?.type === "group"
        ? conversation.userIds
        : [message.sender_id, conversation?.userId ?? message.sender_id];
    link = directMessageUrl(url, participants, message.id);
    const ids = [...new Set(participants)].sort((a, b) => a - b);
    const others = ids.filter((id) => id !== message.sender_id).map((id) => realm.userOrSystemBot(id)!);
    where = `to ${listOfMentions(others.length > 0 ? others : [sender])}`;
  }

  const widget = widgetOf(message.content);
  if (widget) return `${content}${mention} [sent](${link}) a ${widget} ${where}.`;
  content += `${mention} [said](${link}) ${where}:\n`;
  // As Zulip does: the fence is chosen from the text before the quote.
  const fence = unusedFence(content);
  const quote = (body: string) => `${fence}quote\n${body}\n${fence}`;
  const room = MAX_MESSAGE_LENGTH - codePointLength(content + quote(""));
  return content + quote(truncateContent(message.content, room, TRUNCATION_NOTICE));
}
