import type { SubscriptionRow } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import { MESSAGE_FLAG_BITS as FLAG } from "./message-flags.js";
import type { PreparedMessage } from "./prepared-message.js";
import { VISIBILITY } from "./user-topics.js";

/**
 * Who gets a missed-message email for a new message, and why: Zulip's
 * UserMessageNotificationsData.get_email_notification_trigger with the user ID sets of
 * get_recipient_info, for recipients who are off (no live event queue receiving messages).
 * Pure: the caller passes what it knows (settings are on the realm's cached user rows,
 * subscriptions on the cached channel snapshot, the topic's policies from one query).
 */

/** Zulip's NotificationTriggers, in its order of salience (the first that applies wins). */
export const EMAIL_TRIGGERS = [
  "private_message",
  "mentioned",
  "topic_wildcard_mentioned_in_followed_topic",
  "stream_wildcard_mentioned_in_followed_topic",
  "topic_wildcard_mentioned",
  "stream_wildcard_mentioned",
  "followed_topic_email_notify",
  "stream_email_notify",
] as const;
export type EmailTrigger = (typeof EMAIL_TRIGGERS)[number];

export interface TriggerContext {
  user(userId: number): UserRow | undefined;
  /** Channel messages: the recipient's subscription to the channel. */
  subscription(userId: number): SubscriptionRow | undefined;
  /** Channel messages: the recipient's visibility policy for the topic (VISIBILITY). */
  topicPolicy(userId: number): number;
}

/**
 * Recipients who could be emailed at all, before anything channel-specific: not the sender,
 * not bots, active, their copy unread (a muted sender's messages start read) and off; nobody
 * for a message sent without external notifications.
 */
export function emailCandidates(message: PreparedMessage, isOff: (userId: number) => boolean): number[] {
  const candidates: number[] = [];
  if (message.disableExternalNotifications) return candidates;
  for (const [userId, flags] of message.userFlags) {
    if (userId === message.sender.id || (flags & FLAG.read) !== 0) continue;
    const user = message.realm.user(userId);
    if (!user || !bool(user.is_active) || bool(user.is_bot)) continue;
    if (isOff(userId)) candidates.push(userId);
  }
  return candidates;
}

/**
 * Zulip's user_allows_notifications_in_StreamTopic: the topic's policy first (a muted
 * channel notifies only in unmuted topics), then the subscription's own setting, then the
 * user's default.
 */
function allowsInTopic(
  sub: SubscriptionRow | undefined,
  policy: number,
  channelSetting: SubscriptionRow["email_notifications"] | undefined,
  userDefault: boolean,
): boolean {
  if (bool(sub?.is_muted) && policy !== VISIBILITY.UNMUTED) return false;
  if (policy === VISIBILITY.MUTED) return false;
  if (channelSetting !== null && channelSetting !== undefined) return bool(channelSetting);
  return userDefault;
}

/** Why `userId` (a candidate) gets an email for `message`, or null. */
export function emailTrigger(
  message: PreparedMessage,
  userId: number,
  ctx: TriggerContext,
): EmailTrigger | null {
  const user = ctx.user(userId);
  const flags = message.userFlags.get(userId);
  if (!user || flags === undefined) return null;
  // Zulip's dm_mention_email_disabled_user_ids: direct messages and every kind of mention.
  const mentionsEmail = bool(user.enable_offline_email_notifications);
  if (message.recipient.type !== "stream") return mentionsEmail ? "private_message" : null;
  if (mentionsEmail && (flags & FLAG.mentioned) !== 0) return "mentioned";
  const sub = ctx.subscription(userId);
  const policy = ctx.topicPolicy(userId);
  const followed = policy === VISIBILITY.FOLLOWED;
  const wildcardsNotify = () =>
    allowsInTopic(sub, policy, sub?.wildcard_mentions_notify, bool(user.wildcard_mentions_notify));
  const followedWildcards = followed && bool(user.enable_followed_topic_wildcard_mentions_notify);
  if (mentionsEmail && (flags & FLAG.topic_wildcard_mentioned) !== 0) {
    if (followedWildcards) return "topic_wildcard_mentioned_in_followed_topic";
  }
  if (mentionsEmail && (flags & FLAG.stream_wildcard_mentioned) !== 0) {
    if (followedWildcards) return "stream_wildcard_mentioned_in_followed_topic";
  }
  if (mentionsEmail && (flags & FLAG.topic_wildcard_mentioned) !== 0 && wildcardsNotify())
    return "topic_wildcard_mentioned";
  if (mentionsEmail && (flags & FLAG.stream_wildcard_mentioned) !== 0 && wildcardsNotify())
    return "stream_wildcard_mentioned";
  if (followed && bool(user.enable_followed_topic_email_notifications)) return "followed_topic_email_notify";
  if (allowsInTopic(sub, policy, sub?.email_notifications, bool(user.enable_stream_email_notifications)))
    return "stream_email_notify";
  return null;
}
