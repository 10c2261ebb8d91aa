import type { UserRow } from "../../db/rows.js";
import {
  hasCapability,
  type DeleteMessageEvent,
  type Flavour,
  type MessageEvent,
  type PropagateMode,
  type QueueOptions,
  type ReactionEvent,
  type SubmessageEvent,
  type UpdateMessageEvent,
  type UpdateMessageFlagsEvent,
} from "../../wire/events.js";
import type { LocalEcho, WireEmoji, WireMessage, WireUnreadDetails } from "../../wire/records.js";
import { EMAIL_VISIBILITY } from "../../permissions/email-visibility.js";
import { emptyTopicHint, presentEmptyTopics, presentEmptyTopicsIn } from "./empty-topic.js";

/** Message events: new messages, edits and moves, deletions, flags, reactions and submessages. */

export function messageEvent(
  message: WireMessage,
  sender: UserRow,
  emptyTopicDisplayName: string,
  options: { echo?: LocalEcho; publicChannel?: boolean } = {},
): MessageEvent {
  return {
    type: "message",
    message,
    _hints: {
      emptyTopicDisplayName,
      senderAvatarComputable:
        sender.email_address_visibility === EMAIL_VISIBILITY.EVERYONE && sender.avatar_source === "G",
      ...(options.echo ? { echo: options.echo } : {}),
      ...(options.publicChannel ? { publicChannel: true } : {}),
    },
  };
}

/**
 * A message event for one client: Markdown or HTML content (apply_markdown), the
 * avatar (client_gravatar), the empty topic's name (empty_topic_name), the
 * recipient's own flags (per-user extra), and on the sending client's own queue only,
 * its local_id as local_message_id. The hints are not delivered.
 */
export const messageFlavour: Flavour<"message"> = (event, { options, extra, queueId }) => {
  const { _hints, message: _message, ...rest } = event;
  const echo =
    _hints.echo && _hints.echo.queueId === queueId ? { local_message_id: _hints.echo.localId } : {};
  return { ...rest, message: sharedMessage(event, options), flags: [], ...(extra ?? {}), ...echo };
};

/**
 * The message as queues with the same options see it, built once per event and kind of
 * client rather than once per queue: every such queue holds (and a poll serializes, see
 * events/wire-json.ts) the same object. Frozen: a write meant for one queue would throw
 * rather than reach every queue sharing it.
 */
const shapedMessages = new WeakMap<MessageEvent, Map<string, Partial<WireMessage>>>();

function sharedMessage(event: MessageEvent, options: QueueOptions): Partial<WireMessage> {
  const { _hints, message } = event;
  const html = options.applyMarkdown;
  const noAvatar = options.clientGravatar && _hints.senderAvatarComputable;
  const topicName =
    message.subject === "" && message.type === "stream" && !hasCapability(options, "empty_topic_name");
  const key = `${+html}${+noAvatar}${+topicName}`;
  let byKey = shapedMessages.get(event);
  if (!byKey) shapedMessages.set(event, (byKey = new Map<string, Partial<WireMessage>>()));
  const cached = byKey.get(key);
  if (cached) return cached;
  const shaped: Partial<WireMessage> = { ...message };
  if (html) {
    shaped.content = message.rendered_content;
    shaped.content_type = "text/html";
  }
  delete shaped.rendered_content;
  if (noAvatar) shaped.avatar_url = null;
  if (topicName) shaped.subject = _hints.emptyTopicDisplayName;
  byKey.set(key, Object.freeze(shaped));
  return shaped;
}

/** What a content edit changes, as update_message carries it. */
export type ContentEdit = Required<
  Pick<
    UpdateMessageEvent,
    "orig_content" | "orig_rendered_content" | "content" | "rendered_content" | "is_me_message"
  >
>;

export interface MessageEdit {
  editorId: number;
  timestamp: number;
  /** The message the request named, and every message the edit changed (ascending). */
  messageId: number;
  messageIds: number[];
  /** The channel the messages were in; none for direct messages. */
  channel?: { id: number; name: string };
  /** A move to another channel. */
  newChannelId?: number;
  /** A topic edit or a move: the topic before, and the new one if it changed. */
  topic?: { propagateMode: PropagateMode; orig: string; renamed?: string };
  content?: ContentEdit;
  /** The realm's name for the empty topic (for clients without empty_topic_name). */
  emptyTopicName: string;
}

/** update_message: one event for an edit or a move, to everyone who has an edited message. */
export function updateMessageEvent(edit: MessageEdit): UpdateMessageEvent {
  const { channel, topic } = edit;
  return {
    type: "update_message",
    user_id: edit.editorId,
    edit_timestamp: edit.timestamp,
    message_id: edit.messageId,
    message_ids: edit.messageIds,
    rendering_only: false,
    ...(channel ? { stream_name: channel.name, stream_id: channel.id } : {}),
    ...(edit.newChannelId !== undefined ? { new_stream_id: edit.newChannelId } : {}),
    ...(topic ? { propagate_mode: topic.propagateMode, orig_subject: topic.orig } : {}),
    ...(topic?.renamed !== undefined ? { subject: topic.renamed, topic_links: [] } : {}),
    ...(edit.content ?? {}),
    ...(topic ? emptyTopicHint(edit.emptyTopicName, topic.orig, topic.renamed) : {}),
  };
}

/** update_message for one queue: the recipient's flags, and the empty topic's name. */
export const updateMessageFlavour: Flavour<"update_message"> = (event, { options, extra }) => ({
  ...presentEmptyTopics(event, options, ["orig_subject", "subject"]),
  ...(extra ?? {}),
});

/** delete_message for messages of one conversation: a channel topic, or direct messages. */
export function deleteMessageEvent(
  messageIds: number[],
  channel?: { id: number; topic: string; emptyTopicName: string },
): DeleteMessageEvent {
  return channel
    ? {
        type: "delete_message",
        message_ids: messageIds,
        message_type: "stream",
        stream_id: channel.id,
        topic: channel.topic,
        ...emptyTopicHint(channel.emptyTopicName, channel.topic),
      }
    : { type: "delete_message", message_ids: messageIds, message_type: "private" };
}

/**
 * delete_message for one queue: one event with message_ids for clients with the
 * bulk_message_deletion capability, else Zulip's legacy form, one event per message.
 */
export const deleteMessageFlavour: Flavour<"delete_message"> = (event, ctx) => {
  const shaped = event.message_type === "stream" ? presentEmptyTopics(event, ctx.options, ["topic"]) : event;
  if (hasCapability(ctx.options, "bulk_message_deletion")) return shaped;
  const { message_ids: ids, ...rest } = shaped;
  return ids.map((id) => ({ ...rest, message_id: id }));
};

/** update_message_flags; `all` when every message was marked read. */
export function updateMessageFlagsEvent(
  op: "add" | "remove",
  flag: string,
  messageIds: number[],
  options: {
    all?: boolean;
    messageDetails?: Record<string, WireUnreadDetails>;
    /** The realm's name for the empty topic, should a message detail name it. */
    emptyTopicName?: string;
  } = {},
): UpdateMessageFlagsEvent {
  const details = options.messageDetails;
  const topics = Object.values(details ?? {}).map((d) => d.topic as string | undefined);
  return {
    type: "update_message_flags",
    op,
    operation: op,
    flag,
    messages: messageIds,
    all: options.all ?? false,
    ...(details ? { message_details: details } : {}),
    ...(options.emptyTopicName === undefined ? {} : emptyTopicHint(options.emptyTopicName, ...topics)),
  };
}

export function reactionEvent(
  op: "add" | "remove",
  user: UserRow,
  messageId: number,
  emoji: WireEmoji,
): ReactionEvent {
  return {
    type: "reaction",
    op,
    user_id: user.id,
    user: { user_id: user.id, email: user.email, full_name: user.full_name },
    message_id: messageId,
    ...emoji,
  };
}

/** A submessage added to a message (Zulip's do_add_submessage). */
export function submessageEvent(row: {
  id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}): SubmessageEvent {
  return {
    type: "submessage",
    msg_type: row.msg_type,
    message_id: row.message_id,
    submessage_id: row.id,
    sender_id: row.sender_id,
    content: row.content,
  };
}

/** update_message_flags for one queue: the empty topic named in message_details if need be. */
export const updateMessageFlagsFlavour: Flavour<"update_message_flags"> = (event, { options }) => {
  const { _emptyTopicName: name, ...rest } = event;
  if (name === undefined || hasCapability(options, "empty_topic_name") || !rest.message_details) return rest;
  return { ...rest, message_details: presentEmptyTopicsIn(rest.message_details, name) };
};
