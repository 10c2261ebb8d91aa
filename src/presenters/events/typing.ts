import type { TypingEvent, TypingUser } from "../../events/types.js";

/** Typing notifications: in a channel topic, or in a direct conversation. */
export const typingEvents = {
  channel(op: "start" | "stop", sender: TypingUser, channelId: number, topic: string): TypingEvent {
    return { type: "typing", message_type: "stream", op, sender, stream_id: channelId, topic };
  },
  direct(op: "start" | "stop", sender: TypingUser, recipients: TypingUser[]): TypingEvent {
    return { type: "typing", message_type: "direct", op, sender, recipients };
  },
};
