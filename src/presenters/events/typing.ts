import {
  hasCapability,
  type Flavour,
  type TypingEditMessageEvent,
  type TypingEditRecipient,
  type TypingEvent,
  type TypingUser,
} from "../../wire/events.js";
import { emptyTopicHint, presentEmptyTopics } from "./empty-topic.js";

/** Typing notifications: in a channel topic, in a direct conversation, or in a message edit. */
export const typingEvents = {
  channel(
    op: "start" | "stop",
    sender: TypingUser,
    channelId: number,
    topic: string,
    emptyTopicName: string,
  ): TypingEvent {
    return {
      type: "typing",
      message_type: "stream",
      op,
      sender,
      stream_id: channelId,
      topic,
      ...emptyTopicHint(emptyTopicName, topic),
    };
  },
  direct(op: "start" | "stop", sender: TypingUser, recipients: TypingUser[]): TypingEvent {
    return { type: "typing", message_type: "direct", op, sender, recipients };
  },
  editMessage(
    op: "start" | "stop",
    senderId: number,
    messageId: number,
    recipient: TypingEditRecipient,
    emptyTopicName: string,
  ): TypingEditMessageEvent {
    return {
      type: "typing_edit_message",
      op,
      sender_id: senderId,
      message_id: messageId,
      recipient,
      ...(recipient.type === "channel" ? emptyTopicHint(emptyTopicName, recipient.topic) : {}),
    };
  },
};

/**
 * Channel typing goes only to clients with the stream_typing_notifications capability
 * (Zulip's accepts_event), with the empty topic named for those without empty_topic_name.
 */
export const typingFlavour: Flavour<"typing"> = (event, { options }) => {
  if (event.message_type !== "stream") return event;
  if (!hasCapability(options, "stream_typing_notifications")) return null;
  return presentEmptyTopics(event, options, ["topic"]);
};

/** typing_edit_message: the empty topic of a channel message named for clients without empty_topic_name. */
export const typingEditMessageFlavour: Flavour<"typing_edit_message"> = (event, { options }) => {
  const { _emptyTopicName: name, ...rest } = event;
  if (name === undefined || hasCapability(options, "empty_topic_name") || rest.recipient.type !== "channel")
    return rest;
  return {
    ...rest,
    recipient: { ...rest.recipient, topic: rest.recipient.topic === "" ? name : rest.recipient.topic },
  };
};
