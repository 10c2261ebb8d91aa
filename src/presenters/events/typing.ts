import {
  hasCapability,
  type Flavour,
  type TypingEditMessageEvent,
  type TypingEditRecipient,
  type TypingEvent,
  type TypingUser,
} from "../../events/types.js";
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
  ): TypingEditMessageEvent {
    return { type: "typing_edit_message", op, sender_id: senderId, message_id: messageId, recipient };
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
