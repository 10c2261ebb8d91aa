import { bool, int, type DbBigInt, type DbBool, type UserRow } from "../db/rows.js";
import type { Flavour } from "../events/types.js";
import { hasCapability, type ChatEvent } from "../events/types.js";
import { avatarUrl } from "./users.js";
import { EMAIL_VISIBILITY } from "../permissions/email-visibility.js";

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

export interface DisplayRecipientUser {
  id: number;
  email: string;
  full_name: string;
  is_mirror_dummy: boolean;
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
 * source and `rendered_content` the HTML; messageFlavour (events) or the caller picks
 * one for apply_markdown and drops the other.
 */
export function presentMessage(row: MessageRow, ctx: MessageContext): Record<string, unknown> {
  const isStream = row.stream_id !== null;
  const message: Record<string, unknown> = {
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
  if (isStream) message.stream_id = row.stream_id;
  return message;
}

/** What messageFlavour needs besides the message itself (stripped before delivery). */
export interface MessageEventHints {
  /** Shown instead of the empty topic to clients without empty_topic_name. */
  emptyTopicDisplayName: string;
  /** May a client_gravatar client compute the sender's avatar itself? */
  senderAvatarComputable: boolean;
  /** The sender's local_id and queue_id: that queue's event echoes it as local_message_id. */
  echo?: LocalEcho;
}

export interface LocalEcho {
  localId: string;
  queueId: string;
}

export function messageEvent(
  message: Record<string, unknown>,
  sender: UserRow,
  emptyTopicDisplayName: string,
  echo?: LocalEcho,
) {
  const hints: MessageEventHints = {
    emptyTopicDisplayName,
    senderAvatarComputable:
      sender.email_address_visibility === EMAIL_VISIBILITY.EVERYONE && sender.avatar_source === "G",
    ...(echo ? { echo } : {}),
  };
  return { type: "message", message, _hints: hints } satisfies ChatEvent;
}

/**
 * A message event for one client: Markdown or HTML content (apply_markdown), the
 * avatar (client_gravatar), the empty topic's name (empty_topic_name), the
 * recipient's own flags (per-user extra), and on the sending client's own queue only,
 * its local_id as local_message_id.
 */
export const messageFlavour: Flavour = (event, { options, extra, queueId }) => {
  const { _hints, message, ...rest } = event as ChatEvent & {
    _hints: MessageEventHints;
    message: Record<string, unknown>;
  };
  const shaped: Record<string, unknown> = { ...message };
  if (options.applyMarkdown) {
    shaped.content = message.rendered_content;
    shaped.content_type = "text/html";
  }
  delete shaped.rendered_content;
  if (options.clientGravatar && _hints.senderAvatarComputable) shaped.avatar_url = null;
  if (shaped.subject === "" && shaped.type === "stream" && !hasCapability(options, "empty_topic_name")) {
    shaped.subject = _hints.emptyTopicDisplayName;
  }
  const echo =
    _hints.echo && _hints.echo.queueId === queueId ? { local_message_id: _hints.echo.localId } : {};
  return { ...rest, message: shaped, flags: [], ...(extra ?? {}), ...echo };
};
