/**
 * Per-user message flags, stored as a bitfield in user_messages.flags with Zulip's bit
 * positions (the partial indexes of the initial migration rely on them).
 */
export const MESSAGE_FLAG_BITS = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  group_mentioned: 64,
  force_expand: 128,
  force_collapse: 256,
  has_alert_word: 512,
  historical: 1024,
  is_private: 2048,
  active_mobile_push_notification: 4096,
} as const;

export type MessageFlag = keyof typeof MESSAGE_FLAG_BITS;

/** Flags never shown to clients (internal bookkeeping). */
const HIDDEN_FLAGS: ReadonlySet<string> = new Set(["is_private", "active_mobile_push_notification"]);

/** The flag names a client sees for a bitfield, in Zulip's order. */
export function flagNames(bits: number): string[] {
  const names: string[] = [];
  for (const [name, bit] of Object.entries(MESSAGE_FLAG_BITS)) {
    if ((bits & bit) !== 0 && !HIDDEN_FLAGS.has(name)) names.push(name);
  }
  const wildcard = MESSAGE_FLAG_BITS.stream_wildcard_mentioned | MESSAGE_FLAG_BITS.topic_wildcard_mentioned;
  if ((bits & wildcard) !== 0) names.push("wildcard_mentioned");
  return names;
}
