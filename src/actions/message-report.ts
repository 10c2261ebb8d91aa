import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import { int, type UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { directConversation, type DirectConversation } from "../lib/direct-message-groups.js";
import { MAX_MESSAGE_LENGTH, TRUNCATION_NOTICE, truncateContent } from "../lib/message-content.js";
import { accessMessage } from "../lib/message-access.js";
import { loadWorld } from "../cache/world.js";
import { directMessageUrl, globalTime, messageLinkSyntax, unusedFence } from "../lib/message-links.js";
import { isArchived } from "../permissions/channel-access.js";
import type { MessageRow } from "../presenters/messages.js";
import type { RealmSnapshot } from "../world/realm.js";
import { sendBotChannelMessage, silentMention } from "./channel-notices.js";

/**
 * POST /messages/{message_id}/report (Zulip's report_message_backend and
 * send_message_report): the Notification Bot posts the report, in Zulip's words, to the
 * organization's moderation request channel, in the reported user's "moderation" topic.
 */

/** Zulip's Realm.REPORT_MESSAGE_REASONS: each report_type and how a report names it. */
export const REPORT_REASONS = {
  spam: "Spam",
  harassment: "Harassment",
  inappropriate: "Inappropriate content",
  norms: "Violates community norms",
  other: "Other reason",
} as const;
export type ReportType = keyof typeof REPORT_REASONS;
export const REPORT_TYPES = Object.keys(REPORT_REASONS) as ReportType[];

/** Zulip's MAX_REPORT_MESSAGE_EXPLANATION_LENGTH. */
export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;
/** The reported message is cut to leave room for the rest of the report (Zulip's figure). */
const MAX_SNIPPET_LENGTH = MAX_MESSAGE_LENGTH - MAX_REPORT_DESCRIPTION_LENGTH - 500;

/** The reported message, as the report quotes it. */
type ReportedMessage = Pick<
  MessageRow,
  "id" | "sender_id" | "recipient_id" | "stream_id" | "topic" | "content" | "date_sent"
>;

export async function checkReportMessage(
  app: App,
  realm: RealmSnapshot,
  reporter: UserRow,
  messageId: number,
  reportType: ReportType,
  description: string,
): Promise<void> {
  if (reportType === "other" && description === "") throw badRequest("An explanation is required.");
  await app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, realm);
    const channelId = realm.realm.moderation_request_channel_id;
    const moderation = channelId === null ? undefined : world.channels.channel(channelId);
    if (!moderation || isArchived(moderation)) {
      throw badRequest("Message reporting is not enabled in this organization.");
    }
    await accessMessage({ knex: tx.knex, world, user: reporter }, messageId);
    const message = await tx
      .knex("messages")
      .where({ id: messageId })
      .first<ReportedMessage>(
        "id",
        "sender_id",
        "recipient_id",
        "stream_id",
        "topic",
        "content",
        "date_sent",
      );
    const sender = realm.userOrSystemBot(message.sender_id)!;
    const channel = message.stream_id === null ? undefined : world.channels.channel(message.stream_id);
    let header: string;
    let original: string;
    if (channel) {
      header = `${silentMention(reporter)} reported a message sent by ${silentMention(sender)} at ${sentAt(message)}.`;
      original = `Original message at ${messageLinkSyntax(channel, message.topic, message.id)}`;
    } else {
      const conversation = await directConversation(tx.knex, message.recipient_id);
      header = directMessageHeader(realm, reporter, sender, message, conversation);
      original = `[Original message](${reportedDirectMessageUrl(realmUrl(app.config), message, conversation)})`;
    }
    const snippet = truncateContent(message.content, MAX_SNIPPET_LENGTH, TRUNCATION_NOTICE);
    const fence = unusedFence(snippet);
    const content =
      `${header}\n\`\`\`quote\n**${REPORT_REASONS[reportType]}**. ${description}\n\`\`\`\n\n` +
      `${fence} spoiler ${original}\n${snippet}\n${fence}\n`;
    const topic = moderation.topics_policy === "empty_topic_only" ? "" : `${sender.full_name} moderation`;
    await sendBotChannelMessage(app, tx, moderation, topic, content, { realm });
  });
}

const sentAt = (message: ReportedMessage) => globalTime(int(message.date_sent));

function directMessageHeader(
  realm: RealmSnapshot,
  reporter: UserRow,
  sender: UserRow,
  message: ReportedMessage,
  conversation: DirectConversation | undefined,
): string {
  const at = ` at ${sentAt(message)}.`;
  const lead = `${silentMention(reporter)} reported a direct message sent by ${silentMention(sender)}`;
  const mentionOf = (id: number) => {
    const user = realm.userOrSystemBot(id);
    return user ? silentMention(user) : "";
  };
  if (conversation?.type !== "group") {
    if (sender.id !== reporter.id) return lead + at;
    // Reporting one's own message: name who received it.
    const to = conversation && conversation.userId !== reporter.id ? conversation.userId : reporter.id;
    return `${lead} to ${mentionOf(to)}${at}`;
  }
  const others = conversation.userIds
    .filter((id) => id !== sender.id)
    .map(mentionOf)
    .sort();
  const last = others.pop()!;
  return `${lead} to ${others.join(", ")}${others.length > 1 ? "," : ""} and ${last}${at}`;
}

/** The message's link: the conversation's participants (the sender included). */
function reportedDirectMessageUrl(
  url: string,
  message: ReportedMessage,
  conversation: DirectConversation | undefined,
): string {
  const ids =
    conversation?.type === "group"
      ? conversation.userIds
      : [message.sender_id, conversation?.userId ?? message.sender_id];
  return directMessageUrl(url, ids, message.id);
}
