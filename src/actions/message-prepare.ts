import type { Knex } from "knex";
import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import type { ChannelRow } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import { JsonableError, badRequest } from "../errors.js";
import type { LocalEcho } from "../wire/records.js";
import { MESSAGE_FLAG_BITS } from "../lib/message-flags.js";
import { isSystemBot, renderForSend } from "../lib/message-render.js";
import type { MessageRecipient, PreparedMessage } from "../lib/prepared-message.js";
import type { Widget } from "../lib/widgets.js";
import { userHasPermission } from "../permissions/group-settings.js";
import { userHasRealmPermission } from "../permissions/setting-permissions.js";
import { USER_GROUP_SETTINGS } from "../permissions/setting-registry.js";
import { displayRecipientUser, type DisplayRecipientUser } from "../presenters/messages.js";
import { topicLinks, type RenderedMessage } from "../render/message.js";
import type { ChannelSnapshot } from "../world/channels.js";
import type { RealmSnapshot } from "../world/realm.js";

/**
 * The one preparation path of every message, whoever sends it (POST /messages, the
 * CLI, the Notification Bot): render the Markdown, check the mention permissions
 * (users' sends only), compute each recipient's flags. The caller has decided the
 * addressee and whether the sender may write there.
 */

/** Above this many subscribers or topic participants, wildcard mentions need permission. */
export const WILDCARD_MENTION_THRESHOLD = 15;

const FLAG = MESSAGE_FLAG_BITS;

const isTransaction = (knex: Knex) => (knex as Knex & { isTransaction?: boolean }).isTransaction === true;

/** Where the message goes, as the caller resolved it. */
export type Addressee =
  | { kind: "channel"; channel: ChannelRow; topic: string; subscriberIds: readonly number[] }
  | {
      kind: "direct";
      recipient: Exclude<MessageRecipient, { type: "stream" }>;
      /** The sender and the recipients. */
      participants: readonly UserRow[];
    };

export interface MessageDraft {
  sender: UserRow;
  /** Normalized Markdown source. */
  content: string;
  /** Sending client's name (`client` of the message). */
  client: string;
  /** Users whose copy starts read. */
  readBy: ReadonlySet<number>;
  /** Refuse mentions the sender may not make (wildcards, groups); server notices skip this. */
  checkMentions: boolean;
  echo?: LocalEcho;
  /** POST /messages' widget_content, checked. */
  widget?: Widget;
}

export interface PrepareScope {
  /** Reads: the request's read pool, or the caller's transaction (which may have changed things). */
  knex: Knex;
  realm: RealmSnapshot;
  /** Channels for rendering links, or null to read them through `knex` (system bots). */
  channels: ChannelSnapshot | null;
}

export async function prepareMessageTo(
  app: App,
  scope: PrepareScope,
  draft: MessageDraft,
  to: Addressee,
): Promise<PreparedMessage> {
  const { knex, realm } = scope;
  const { sender, content } = draft;
  // Both cached per realm (no query per send); read afresh inside a transaction.
  const linkifiers = await app.sendRules.linkifiers(knex, realm.id);
  const rendered = await renderForSend(
    {
      knex,
      realm,
      channels: scope.channels,
      sender,
      realmUrl: realmUrl(app.config),
      now: () => new Date(app.clock.nowMs()),
      linkifiers,
      // Inside a transaction, reading the few names used beats loading the whole set.
      ...(isTransaction(knex) ? {} : { realmEmoji: await app.sendRules.realmEmoji(knex, realm.id) }),
    },
    content,
  );
  const rules = await sendRules(app, knex, realm.id, sender.id, content);
  const message = {
    realm,
    sender,
    content,
    rendered,
    client: draft.client,
    ...(draft.echo ? { echo: draft.echo } : {}),
    ...(draft.widget ? { widget: draft.widget } : {}),
  };
  if (to.kind === "direct") {
    if (draft.checkMentions) validateGroupMentions(realm, sender, rendered.mentionedGroupIds);
    return {
      ...message,
      recipient: to.recipient,
      topic: "",
      displayRecipient: directDisplayRecipient(to.participants, to.recipient),
      topicLinks: [],
      userFlags: recipientFlags(
        to.participants.filter((u) => bool(u.is_active)).map((u) => u.id),
        { isPrivate: true, readBy: draft.readBy, mentions: mentionsOf(realm, rendered), ...rules },
      ),
    };
  }

  const { channel, topic, subscriberIds } = to;
  const mayMentionMany = () => userHasRealmPermission(realm, sender, "can_mention_many_users_group");
  if (
    draft.checkMentions &&
    rendered.mentionsChannelWildcard &&
    subscriberIds.length > WILDCARD_MENTION_THRESHOLD &&
    !mayMentionMany()
  ) {
    throw new JsonableError(
      "You do not have permission to use channel wildcard mentions in this channel.",
      "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
    );
  }
  let participants: Set<number> | undefined;
  if (rendered.mentionsTopicWildcard) {
    participants = await topicParticipantIds(knex, channel.id, topic);
    participants.add(sender.id);
    if (draft.checkMentions && participants.size > WILDCARD_MENTION_THRESHOLD && !mayMentionMany()) {
      throw new JsonableError(
        "You do not have permission to use topic wildcard mentions in this topic.",
        "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
      );
    }
  }
  if (draft.checkMentions) validateGroupMentions(realm, sender, rendered.mentionedGroupIds);
  const mentions = mentionsOf(realm, rendered, participants);
  return {
    ...message,
    recipient: { type: "stream", channel },
    topic,
    displayRecipient: channel.name,
    topicLinks: topicLinks(topic, linkifiers),
    userFlags: recipientFlags(subscriberIds, { isPrivate: false, readBy: draft.readBy, mentions, ...rules }),
    mentionedUserIds: mentions.userIds,
  };
}

/** Zulip's check_user_group_mention_allowed. */
function validateGroupMentions(realm: RealmSnapshot, sender: UserRow, groupIds: Iterable<number>): void {
  const everyone = realm.systemGroupId("role:everyone");
  for (const groupId of [...groupIds].sort((a, b) => a - b)) {
    const node = realm.groups.get(groupId);
    if (!node) continue;
    const settingGroupId = node.row.can_mention_group_id ?? realm.systemGroupId("role:nobody");
    if (settingGroupId === everyone) continue;
    if (
      isSystemBot(sender) ||
      !userHasPermission(realm, sender, settingGroupId, USER_GROUP_SETTINGS.can_mention_group)
    ) {
      throw badRequest(`You are not allowed to mention user group '${node.row.name ?? ""}'.`);
    }
  }
}

/** display_recipient of a direct message: 1:1 by email, groups by ID (Zulip's hydrate_recipient_info). */
function directDisplayRecipient(
  participants: readonly UserRow[],
  recipient: MessageRecipient,
): DisplayRecipientUser[] {
  const users = participants.map(displayRecipientUser);
  if (recipient.type === "group") return users.sort((a, b) => a.id - b.id);
  return users.sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}

// ---- mentions and flags ----

/** Who a rendered message mentions, for flags. */
interface Mentions {
  /** Direct mentions and members of mentioned groups (the `mentioned` flag). */
  userIds: Set<number>;
  /** Members of mentioned groups (the `group_mentioned` flag). */
  groupMemberIds: Set<number>;
  channelWildcard: boolean;
  topicWildcard: boolean;
  /** Topic participants (sent or reacted in the topic, the sender included), when @**topic** is used. */
  topicParticipantIds: ReadonlySet<number>;
}

function mentionsOf(
  realm: RealmSnapshot,
  rendered: RenderedMessage,
  topicParticipantIds: ReadonlySet<number> = new Set(),
): Mentions {
  const groupMemberIds = new Set<number>();
  for (const groupId of rendered.mentionedGroupIds) {
    for (const userId of realm.recursiveMembers(groupId)) groupMemberIds.add(userId);
  }
  return {
    userIds: new Set([...rendered.mentionedUserIds, ...groupMemberIds]),
    groupMemberIds,
    channelWildcard: rendered.mentionsChannelWildcard,
    topicWildcard: rendered.mentionsTopicWildcard,
    topicParticipantIds,
  };
}

/** The per-user rules of a send: whose alert words it contains, who muted its sender. */
interface SendRules {
  alerted: ReadonlySet<number>;
  mutedBy: ReadonlySet<number>;
}

/** Both come from the realm's cached alert words and mutes: no query per send. */
async function sendRules(
  app: App,
  knex: Knex,
  realmId: number,
  senderId: number,
  content: string,
): Promise<SendRules> {
  const matcher = await app.sendRules.alertWordMatcher(knex, realmId);
  return {
    alerted: matcher.usersAlerted(content),
    mutedBy: await app.sendRules.mutersOf(knex, realmId, senderId),
  };
}

/**
 * Each recipient's flag bits (Zulip's create_user_messages): copies of those who muted
 * the sender start read; alert words count for the sender too, as in Zulip.
 */
function recipientFlags(
  recipientIds: Iterable<number>,
  options: { isPrivate: boolean; readBy: ReadonlySet<number>; mentions: Mentions } & SendRules,
): Map<number, number> {
  const { mentions } = options;
  let base = options.isPrivate ? FLAG.is_private : 0;
  if (mentions.channelWildcard) base |= FLAG.stream_wildcard_mentioned;
  const flags = new Map<number, number>();
  for (const userId of recipientIds) {
    let bits = base;
    if (options.readBy.has(userId) || options.mutedBy.has(userId)) bits |= FLAG.read;
    if (options.alerted.has(userId)) bits |= FLAG.has_alert_word;
    if (mentions.userIds.has(userId)) bits |= FLAG.mentioned;
    if (mentions.groupMemberIds.has(userId)) bits |= FLAG.group_mentioned;
    if (mentions.topicWildcard && mentions.topicParticipantIds.has(userId))
      bits |= FLAG.topic_wildcard_mentioned;
    flags.set(userId, bits);
  }
  return flags;
}

/** Users who sent or reacted to messages in the topic (Zulip's participants_for_topic). */
async function topicParticipantIds(knex: Knex, channelId: number, topic: string): Promise<Set<number>> {
  const where = { "m.stream_id": channelId, "m.topic_key": topic.toLowerCase() };
  const senders = await knex("messages as m").where(where).distinct().pluck<number[]>("m.sender_id");
  const reactors = await knex("reactions as r")
    .join("messages as m", "m.id", "r.message_id")
    .where(where)
    .distinct()
    .pluck<number[]>("r.user_id");
  return new Set([...senders, ...reactors]);
}
