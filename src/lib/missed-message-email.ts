import { composeEmail, type EmailContent } from "./email-content.js";
import type { EmailTrigger } from "./missed-message-triggers.js";

/**
 * The email about one conversation's missed messages (Zulip's
 * do_send_missedmessage_events_reply_in_zulip and its missed_message templates): the
 * subject names the conversation, the body quotes the messages (unless the user hides
 * message content) and links to the conversation in the web client.
 */

export type MissedConversation =
  | { readonly type: "private" }
  /** The other participants' names. */
  | { readonly type: "group"; readonly otherNames: readonly string[] }
  | { readonly type: "stream"; readonly channelName: string; readonly topic: string };

export interface MissedMessagesEmail {
  readonly realmName: string;
  readonly serverUrl: string;
  readonly conversation: MissedConversation;
  /** Oldest first. */
  readonly messages: ReadonlyArray<{ readonly senderName: string; readonly text: string }>;
  readonly triggers: ReadonlySet<EmailTrigger>;
  /** The user's message_content_in_email_notifications (and the realm's, which allows it). */
  readonly showContent: boolean;
  /** realm_name_in_email_notifications_policy, as decided for this user. */
  readonly realmNameInSubject: boolean;
  /** The conversation in the web client. */
  readonly narrowUrl: string;
}

const RESOLVED_PREFIX = "✔ ";

/** Zulip's direct_message_group_display_name: "A and B", "A, B, and C", "A, B, and 3 others". */
export function groupDisplayName(names: readonly string[]): string {
  if (names.length <= 2) return names.join(" and ");
  if (names.length === 3) return `${names[0]}, ${names[1]}, and ${names[2]}`;
  return `${names[0]}, ${names[1]}, and ${names.length - 2} others`;
}

const MENTIONS: ReadonlySet<EmailTrigger> = new Set([
  "mentioned",
  "topic_wildcard_mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned_in_followed_topic",
  "stream_wildcard_mentioned_in_followed_topic",
]);

function subjectOf(email: MissedMessagesEmail, senders: readonly string[]): string {
  const { conversation } = email;
  let subject: string;
  if (!email.showContent) subject = "New messages";
  else if (conversation.type === "group")
    subject = `Group DMs with ${groupDisplayName(conversation.otherNames)}`;
  else if (conversation.type === "private") subject = `DMs with ${senders.join(", ")}`;
  else if (conversation.topic.startsWith(RESOLVED_PREFIX)) {
    // Zulip's bracketed prefix: mail clients keep threading the topic once it is resolved.
    subject = `[resolved] #${conversation.channelName} > ${conversation.topic.slice(RESOLVED_PREFIX.length)}`;
  } else subject = `#${conversation.channelName} > ${conversation.topic}`;
  return email.realmNameInSubject ? `${subject} [${email.realmName}]` : subject;
}

function introOf(email: MissedMessagesEmail, senders: readonly string[]): string {
  const { conversation } = email;
  if (!email.showContent) {
    return (
      `You have new messages in ${email.realmName}. Their content is not included, ` +
      "as message content in email notifications is turned off."
    );
  }
  if (conversation.type === "private") return `${senders.join(", ")} sent you direct messages:`;
  if (conversation.type === "group")
    return `New direct messages in your group with ${groupDisplayName(conversation.otherNames)}:`;
  return `New messages in #${conversation.channelName} > ${conversation.topic}:`;
}

/** Zulip's footer: why this email came. */
function reasonOf(triggers: ReadonlySet<EmailTrigger>): string {
  if ([...triggers].some((t) => MENTIONS.has(t)))
    return "You are receiving this email because you were mentioned.";
  if (triggers.has("followed_topic_email_notify"))
    return "You are receiving this email because you follow this topic.";
  if (triggers.has("stream_email_notify"))
    return "You are receiving this email because you have email notifications enabled for this channel.";
  return "You are receiving this email because you were sent direct messages while you were away.";
}

export function composeMissedMessagesEmail(email: MissedMessagesEmail): EmailContent {
  const senders = [...new Set(email.messages.map((m) => m.senderName))];
  return composeEmail({
    realmName: email.realmName,
    serverUrl: email.serverUrl,
    subject: subjectOf(email, senders),
    paragraphs: [introOf(email, senders)],
    ...(email.showContent ? { quotes: email.messages.map((m) => `${m.senderName}:\n${m.text}`) } : {}),
    action: { label: "Reply in the app", url: email.narrowUrl },
    footer: `${reasonOf(email.triggers)} Manage email preferences: ${email.serverUrl}/#settings/notifications`,
  });
}
