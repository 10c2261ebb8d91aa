import type { App } from "../app.js";
import type { ChannelRow } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { notificationBot } from "./notification-bot.js";
import type { RealmSnapshot } from "../world/realm.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { doSendDirectMessage, doSendMessage } from "./message-send.js";

/**
 * What the Notification Bot says about channels, in Zulip's words (English; Zulip
 * translates to the realm's language).
 */

/** Topic of the notices posted in a channel about itself. */
export const CHANNEL_EVENTS_TOPIC = "channel events";
/** Topic of new-channel announcements. */
export const NEW_CHANNELS_TOPIC = "new channels";

/** A mention that does not notify: @_**Full Name|id**. */
export const silentMention = (user: UserRow) => `@_**${user.full_name}|${user.id}**`;
export const channelLink = (channel: { name: string }) => `#**${channel.name}**`;

export type PermissionPolicy =
  "Web-public" | "Public" | "Private, shared history" | "Private, protected history";

export function permissionPolicy(
  channel: Pick<ChannelRow, "invite_only" | "is_web_public" | "history_public_to_subscribers">,
): PermissionPolicy {
  if (bool(channel.is_web_public)) return "Web-public";
  if (!bool(channel.invite_only)) return "Public";
  return bool(channel.history_public_to_subscribers)
    ? "Private, shared history"
    : "Private, protected history";
}

const quoted = (description: string) =>
  `\n\`\`\`\` quote\n${description === "" ? "*No description.*" : description}\n\`\`\`\``;

/** The notice in a new channel. */
export const creationNotice = (creator: UserRow, channel: ChannelRow) =>
  `**${permissionPolicy(channel)}** channel created by ${silentMention(creator)}. **Description:**` +
  quoted(channel.description);

export const renameNotice = (user: UserRow, oldName: string, newName: string) =>
  `${silentMention(user)} renamed channel **${oldName}** to **${newName}**.`;

export const descriptionNotice = (user: UserRow, oldDescription: string, newDescription: string) =>
  `${silentMention(user)} changed the description for this channel.\n\n` +
  `* **Old description:**${quoted(oldDescription)}\n` +
  `* **New description:**${quoted(newDescription)}`;

export const permissionNotice = (user: UserRow, from: PermissionPolicy, to: PermissionPolicy) =>
  `${silentMention(user)} changed the [access permissions](/help/channel-permissions) for this channel ` +
  `from **${from}** to **${to}**.`;

export function topicsPolicyLabel(policy: string, emptyTopicName: string): string {
  switch (policy) {
    case "allow_empty_topic":
      return `*${emptyTopicName}* topic allowed`;
    case "disable_empty_topic":
      return `No *${emptyTopicName}* topic`;
    case "empty_topic_only":
      return `Only *${emptyTopicName}* topic allowed`;
    default:
      return "Automatic";
  }
}

export const topicsPolicyNotice = (user: UserRow, from: string, to: string, emptyTopicName: string) =>
  `${silentMention(user)} changed the "Allow posting to the *${emptyTopicName}* topic?" setting from ` +
  `**${topicsPolicyLabel(from, emptyTopicName)}** to **${topicsPolicyLabel(to, emptyTopicName)}**.`;

export const archiveNotice = (channel: ChannelRow) => `Channel ${channelLink(channel)} has been archived.`;
export const unarchiveNotice = (channel: ChannelRow) =>
  `Channel ${channelLink(channel)} has been unarchived.`;

/** "{user} subscribed you to …" for a user someone else subscribed. */
export function subscribedYouMessage(actor: UserRow, channelNames: readonly string[]): string {
  const names = [...channelNames].sort();
  if (names.length === 1)
    return `${silentMention(actor)} subscribed you to ${channelLink({ name: names[0]! })}.`;
  return (
    `${silentMention(actor)} subscribed you to the following channels:\n\n` +
    names.map((name) => `* ${channelLink({ name })}\n`).join("")
  );
}

/** "{user} created a new channel …" for the announcements channel. */
export function announcementMessage(actor: UserRow, created: readonly ChannelRow[]): string {
  const links = created.map(channelLink).join(", ");
  return created.length > 1
    ? `${silentMention(actor)} created the following channels: ${links}.`
    : `${silentMention(actor)} created a new channel ${links}.`;
}

/** The topic of notices in a channel (the empty topic where only it is allowed). */
export const channelEventsTopic = (channel: ChannelRow) =>
  channel.topics_policy === "empty_topic_only" ? "" : CHANNEL_EVENTS_TOPIC;

export interface NoticeOptions {
  /** Users whose copy starts read (the actor, as Zulip marks it). */
  markAsRead?: Iterable<number>;
  /** The realm as the transaction sees it (new anonymous groups included). */
  realm?: RealmSnapshot;
}

/** Posts a Notification Bot notice in the channel's channel-events topic. */
export async function sendChannelNotice(
  app: App,
  tx: Tx,
  channel: ChannelRow,
  content: string,
  options: NoticeOptions = {},
): Promise<void> {
  await sendBotChannelMessage(app, tx, channel, channelEventsTopic(channel), content, options);
}

/** Posts a Notification Bot message in a topic of a channel. */
export async function sendBotChannelMessage(
  app: App,
  tx: Tx,
  channel: ChannelRow,
  topic: string,
  content: string,
  options: NoticeOptions = {},
): Promise<void> {
  const bot = await notificationBot(app, tx, channel.realm_id);
  await doSendMessage(app, tx, { sender: bot, channel, topic, content, ...options });
}

/** Sends a Notification Bot direct message. */
export async function sendBotDirectMessage(
  app: App,
  tx: Tx,
  recipient: UserRow,
  content: string,
  markAsRead: Iterable<number> = [],
): Promise<void> {
  const bot = await notificationBot(app, tx, recipient.realm_id);
  await doSendDirectMessage(app, tx, { sender: bot, recipient, content, markAsRead });
}

export const emptyTopicName = (realm: RealmSnapshot) => emptyTopicDisplayName(realm.realm);
