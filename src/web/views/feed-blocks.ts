import type { Message } from "../api/types.js";
import { messageDmKey } from "../model/narrow.js";
import { dmPlace, streamPlace } from "../model/typing.js";
import { dayOf } from "./time.js";

/** A run of messages of one conversation (a recipient header over them), and the day they start. */
export interface Block {
  /** Stays the block's key while messages are added above or below it (see BlockKeys). */
  key: string;
  conversation: string;
  first: Message;
  messages: Message[];
  day: string | null;
}

/**
 * Gives each block the key it had in the last drawing, found by any message it held then.
 * Keyed by its first message instead, a long conversation got a new key (and was drawn
 * anew, every message of it) each time older messages were fetched above it; the old
 * drawing also stayed in memory while its avatars were still loading.
 */
export class BlockKeys {
  private byMessage = new Map<number, string>();
  private next = 0;

  constructor(private readonly myUserId: number) {}

  /** Splits the messages into blocks and keys them; call once per drawing. */
  blocks(messages: readonly Message[]): Block[] {
    const blocks: Block[] = [];
    let lastDay = "";
    for (const message of messages) {
      const day = dayOf(message.timestamp);
      const conversation =
        message.type === "stream"
          ? streamPlace(message.stream_id!, message.subject)
          : dmPlace(messageDmKey(message, this.myUserId));
      const last = blocks[blocks.length - 1];
      if (last && last.conversation === conversation && day === lastDay) last.messages.push(message);
      else
        blocks.push({
          key: "",
          conversation,
          first: message,
          messages: [message],
          day: day === lastDay ? null : day,
        });
      lastDay = day;
    }
    const used = new Set<string>();
    const byMessage = new Map<number, string>();
    for (const block of blocks) {
      let key: string | undefined;
      for (const message of block.messages) {
        const had = this.byMessage.get(message.id);
        if (had !== undefined && !used.has(had)) {
          key = had;
          break;
        }
      }
      block.key = key ?? `b${this.next++}`;
      used.add(block.key);
      for (const message of block.messages) byMessage.set(message.id, block.key);
    }
    this.byMessage = byMessage;
    return blocks;
  }
}
