import { MESSAGE_FLAG_BITS } from "../message-flags.js";

/**
 * Zulip's UserMessage.ALL_FLAGS, in its order: flag number i is bit 2^i of the
 * `flags_mask` Zulip's export writes for each zerver_usermessage row.
 */
export const ZULIP_USER_MESSAGE_FLAGS = [
  "read",
  "starred",
  "collapsed",
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "group_mentioned",
  "force_expand",
  "force_collapse",
  "has_alert_word",
  "historical",
  "is_private",
  "active_mobile_push_notification",
] as const;

/**
 * Zulip's flags_mask of chatd's user_messages.flags. chatd stores flags with Zulip's bit
 * positions, so each known bit is carried over as it is; bits Zulip has no flag for
 * (none today) are dropped rather than given a meaning they never had.
 */
export function zulipFlagsMask(chatdFlags: number): number {
  let mask = 0;
  ZULIP_USER_MESSAGE_FLAGS.forEach((name, position) => {
    if ((chatdFlags & MESSAGE_FLAG_BITS[name]) !== 0) mask |= 1 << position;
  });
  return mask;
}
