import { bool, int, type DbBigInt, type DbBool, type UserRow } from "../db/rows.js";
import type { DisplayRecipientUser, WireMessage } from "../wire/records.js";
import { avatarUrl } from "./users.js";

export type { DisplayRecipientUser };

/** The columns of a message row the presenter reads. */
export interface MessageRow {
  id: number;
  sender_id: number;
  recipient_id: number;
  stream_id: number | null;
  topic: string;
  content: string;
  rendered_content: string;
  date_sent: DbBigInt;
  sending_client: string;
  is_me_message: DbBool;
}

export const displayRecipientUser = (user: UserRow): DisplayRecipientUser => ({
  id: user.id,
  email: user.email,
  full_name: user.full_name,
  is_mirror_dummy: bool(user.is_mirror_dummy),
});

export interface MessageContext {
  /** The realm's string_id (sender_realm_str). */
  realmStr: string;
  sender: UserRow;
  /** Channel name, or the participants of a direct message. */
  displayRecipient: string | DisplayRecipientUser[];
  /** The topic's links (linkifiers and URLs in it); none if not given. */
  topicLinks?: ReadonlyArray<{ text: string; url: string }>;
}

/**
 * Zulip's message dictionary, before the per-client step: `content` is the Markdown
 * source and `rendered_content` the HTML; the message flavour (events) or the caller picks
 * one for apply_markdown and drops the other.
 */
export function presentMessage(row: MessageRow, ctx: MessageContext): WireMessage {
  const isStream = row.stream_id !== null;
  const message: WireMessage = {
    id: row.id,
    type: isStream ? "stream" : "private",
    sender_id: row.sender_id,
    sender_email: ctx.sender.email,
    sender_full_name: ctx.sender.full_name,
    sender_realm_str: ctx.realmStr,
    avatar_url: avatarUrl(ctx.sender, false),
    client: row.sending_client,
    content: row.content,
    rendered_content: row.rendered_content,
    content_type: "text/x-markdown",
    recipient_id: row.recipient_id,
    display_recipient: ctx.displayRecipient,
    subject: row.topic,
    topic_links: ctx.topicLinks ? ctx.topicLinks.map(({ text, url }) => ({ text, url })) : [],
    timestamp: int(row.date_sent),
    is_me_message: bool(row.is_me_message),
    reactions: [],
    submessages: [],
  };
  if (row.stream_id !== null) message.stream_id = row.stream_id;
  return message;
}
