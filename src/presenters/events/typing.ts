import type {
  TypingEditMessageEvent,
  TypingEditRecipient,
  TypingEvent,
  TypingUser,
} from "../../events/types.js";

/** Typing notifications: in a channel topic, in a direct conversation, or in a message edit. */
export const typingEvents = {
  channel(op: "start" | "stop", sender: TypingUser, channelId: number, topic: string): TypingEvent {
    return { type: "typing", message_type: "stream", op, sender, stream_id: channelId, topic };
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
