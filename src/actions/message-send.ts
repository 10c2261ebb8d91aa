import { streamEvents } from "../presenters/events/channels.js";
import { messageEvent } from "../presenters/events/messages.js";
import { GroupCommit } from "../db/group-commit.js";
import type { Knex } from "knex";
import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import { RECIPIENT_TYPE, type ChannelRow } from "../db/channel-rows.js";
import { bulkInsert, bulkInsertReturningIds, insertReturningId } from "../db/insert.js";
import { bool, type UserRow } from "../db/rows.js";
import { indexMessages } from "../db/search-sqlite.js";
import type { Tx } from "../db/tx.js";
import { JsonableError, badRequest } from "../errors.js";
import type { ChannelSnapshot } from "../world/channels.js";
import { channelViewerIds, checkCanPostToChannel, type ChannelWorld } from "../permissions/channel-access.js";
import { checkChannelName } from "../lib/channel-validation.js";
import { MESSAGE_FLAG_BITS, flagNames } from "../lib/message-flags.js";
import {
  checkTopic,
  defaultReadBySender,
  extractChannelIndicator,
  extractDirectRecipients,
  normalizeContent,
  truncateTopic,
} from "../lib/message-content.js";
import { isSystemBot, renderForSend, type RenderScope } from "../lib/message-render.js";
import type { RealmSnapshot } from "../world/realm.js";
import { escapeHtml } from "../lib/search.js";
import { userHasPermission } from "../permissions/group-settings.js";
import { userHasChannelPermission, userHasRealmPermission } from "../permissions/setting-permissions.js";
import { USER_GROUP_SETTINGS } from "../permissions/setting-registry.js";
import {
  displayRecipientUser,
  presentMessage,
  type DisplayRecipientUser,
  type MessageRow,
} from "../presenters/messages.js";
import type { LocalEcho } from "../events/wire-types.js";
import { canSeeDeliveryEmail } from "../permissions/email-visibility.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import {
  plainText,
  topicLinks,
  type Linkifier,
  type RenderedMessage,
  type TopicLink,
} from "../render/message.js";
import { loadWorld } from "../cache/world.js";

/**
 * Sending messages, in two parts as Zulip's check_message / do_send_messages:
 *
 * - preparation (checkSendMessage's first half, and the notice helpers): parse the
 *   addressee, normalize the content, check every permission, render the Markdown and
 *   compute each recipient's flags, reading only cached snapshots and a few bulk
 *   queries, outside any transaction;
 * - doSendMessages: given fully prepared messages, write them (message rows, one bulk
 *   insert of user_messages rows, the full-text index) and queue their events. It takes
 *   a list so several sends can share one transaction.
 */

/** The client name of messages the server sends itself. */
export const INTERNAL_CLIENT = "Internal";

/** Above this many subscribers or topic participants, wildcard mentions need permission. */
export const WILDCARD_MENTION_THRESHOLD = 15;

const FLAG = MESSAGE_FLAG_BITS;

// ---- prepared messages and the write part ----

/** Where a message goes. */
export type MessageRecipient =
  | { type: "stream"; channel: ChannelRow }
  /** A one-to-one (or self) direct message: the receiving user's personal recipient. */
  | { type: "personal"; userId: number }
  /** A direct message group: every participant, the sender included, ascending. */
  | { type: "group"; userIds: readonly number[] };

/** A validated, rendered message with its recipients' flags: all the write part needs. */
export interface PreparedMessage {
  realm: RealmSnapshot;
  sender: UserRow;
  recipient: MessageRecipient;
  /** "" for direct messages. */
  topic: string;
  /** Normalized Markdown source. */
  content: string;
  rendered: Pick<RenderedMessage, "html" | "isMeMessage" | "hasLink" | "hasImage">;
  /** Sending client's name (`client` of the message). */
  client: string;
  /** display_recipient: the channel's name or the participants. */
  displayRecipient: string | DisplayRecipientUser[];
  topicLinks: readonly TopicLink[];
  /** Every user who gets the message (a user_messages row and the event), with their flag bits. */
  userFlags: ReadonlyMap<number, number>;
  /** local_id + queue_id of the request: that queue's event echoes local_message_id. */
  echo?: LocalEcho;
}

/** The personal recipient of a user (direct messages to them), created on first use. */
async function personalRecipientId(tx: Tx, userId: number): Promise<number> {
  const where = { type: RECIPIENT_TYPE.PERSONAL, type_id: userId };
  const existing = await tx.knex("recipients").where(where).first<{ id: number } | undefined>("id");
  return existing?.id ?? insertReturningId(tx.knex, "recipients", where);
}

/** The recipient of a direct message group, created (with its group) on first use. */
async function groupRecipientId(tx: Tx, realmId: number, userIds: readonly number[]): Promise<number> {
  const key = userIds.join(",");
  const existing = await tx
    .knex("direct_message_groups as g")
    .join("recipients as r", function () {
      this.on("r.type_id", "=", "g.id").andOn(
        "r.type",
        "=",
        tx.knex.raw("?", [RECIPIENT_TYPE.DIRECT_MESSAGE_GROUP]),
      );
    })
    .where({ "g.realm_id": realmId, "g.user_ids_key": key })
    .first<{ id: number } | undefined>("r.id");
  if (existing) return existing.id;
  const groupId = await insertReturningId(tx.knex, "direct_message_groups", {
    realm_id: realmId,
    user_ids_key: key,
    group_size: userIds.length,
  });
  return insertReturningId(tx.knex, "recipients", {
    type: RECIPIENT_TYPE.DIRECT_MESSAGE_GROUP,
    type_id: groupId,
  });
}

async function recipientIdFor(tx: Tx, realmId: number, recipient: MessageRecipient): Promise<number> {
  switch (recipient.type) {
    case "stream":
      if (recipient.channel.recipient_id === null) {
        throw new Error(`channel ${recipient.channel.id} has no recipient`);
      }
      return recipient.channel.recipient_id;
    case "personal":
      return personalRecipientId(tx, recipient.userId);
    case "group":
      return groupRecipientId(tx, realmId, recipient.userIds);
  }
}

/**
 * Writes prepared messages and queues their events; returns their IDs in order. Does no
 * checks: everything was decided when the messages were prepared.
 */
export async function doSendMessages(
  app: App,
  tx: Tx,
  messages: readonly PreparedMessage[],
): Promise<number[]> {
  const fields = [];
  const stored = [];
  for (const message of messages) {
    const realmId = message.realm.id;
    const row = {
      sender_id: message.sender.id,
      recipient_id: await recipientIdFor(tx, realmId, message.recipient),
      stream_id: message.recipient.type === "stream" ? message.recipient.channel.id : null,
      topic: message.topic,
      content: message.content,
      rendered_content: message.rendered.html,
      date_sent: tx.now,
      sending_client: message.client,
      is_me_message: message.rendered.isMeMessage,
    };
    fields.push(row);
    stored.push({
      ...row,
      realm_id: realmId,
      topic_key: message.topic.toLowerCase(),
      has_link: message.rendered.hasLink,
      has_image: message.rendered.hasImage,
      // Set only when the message links to uploaded files that exist; chatd has no uploads.
      has_attachment: false,
    });
  }
  // One multi-row INSERT for the batch: IDs come back in VALUES order.
  const ids = await bulkInsertReturningIds(tx.knex, "messages", stored);
  const rows: MessageRow[] = fields.map((row, i) => ({ ...row, id: ids[i]! }));

  const userMessages: Array<[number, number, number]> = [];
  messages.forEach((message, i) => {
    for (const [userId, flags] of message.userFlags) userMessages.push([userId, rows[i]!.id, flags]);
  });
  await bulkInsert(tx.knex, "user_messages", ["user_id", "message_id", "flags"], userMessages);
  await indexMessages(
    tx.knex,
    rows.map((row) => ({ id: row.id, topic: row.topic, text: plainText(row.rendered_content) })),
  );

  for (const [i, message] of messages.entries()) {
    const row = rows[i]!;
    const { realm, recipient } = message;
    if (recipient.type === "stream")
      await updateFirstMessageId(app, tx, realm, recipient.channel, message, row.id);
    const presented = presentMessage(row, {
      realmStr: realm.realm.string_id,
      sender: message.sender,
      displayRecipient: message.displayRecipient,
      topicLinks: message.topicLinks,
    });
    const perUser = new Map<number, Record<string, unknown>>();
    for (const [userId, flags] of message.userFlags) perUser.set(userId, { flags: flagNames(flags) });
    tx.sendEventOnCommit(
      realm.id,
      messageEvent(presented, message.sender, emptyTopicDisplayName(realm.realm), message.echo),
      perUser,
    );
  }
  return rows.map((row) => row.id);
}

/** A channel's first message: remember it and tell everyone who sees the channel. */
async function updateFirstMessageId(
  app: App,
  tx: Tx,
  realm: RealmSnapshot,
  channel: ChannelRow,
  message: PreparedMessage,
  messageId: number,
): Promise<void> {
  if (channel.first_message_id !== null) return;
  const updated = await tx
    .knex("streams")
    .where({ id: channel.id })
    .whereNull("first_message_id")
    .update({ first_message_id: messageId });
  if (updated === 0) return;
  tx.afterCommit(() => app.channels.invalidate(channel.realm_id));
  tx.sendEventOnCommit(
    channel.realm_id,
    streamEvents.firstMessageId(channel, messageId),
    channelViewerIds(realm, channel, message.userFlags.keys()),
  );
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

/** Each recipient's flag bits (Zulip's create_user_messages). */
function recipientFlags(
  recipientIds: Iterable<number>,
  options: { isPrivate: boolean; readBy: ReadonlySet<number>; mentions: Mentions },
): Map<number, number> {
  const { mentions } = options;
  let base = options.isPrivate ? FLAG.is_private : 0;
  if (mentions.channelWildcard) base |= FLAG.stream_wildcard_mentioned;
  const flags = new Map<number, number>();
  for (const userId of recipientIds) {
    let bits = base;
    if (options.readBy.has(userId)) bits |= FLAG.read;
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

async function linkifiersOf(knex: Knex, realmId: number): Promise<Linkifier[]> {
  return knex("linkifiers")
    .where({ realm_id: realmId })
    .orderBy(["order", "id"])
    .select<Linkifier[]>("pattern", "url_template");
}

// ---- notices (Notification Bot) and other internal sends ----

export interface ChannelMessageInput {
  sender: UserRow;
  channel: ChannelRow;
  topic: string;
  content: string;
  /** Sending client's name (`client` of the message). */
  client?: string;
  /** Users whose copy starts read, besides the sender (Zulip's mark_as_read). */
  markAsRead?: Iterable<number>;
  /** The realm as the caller's transaction sees it, if it changed groups in it. */
  realm?: RealmSnapshot;
}

export interface DirectMessageInput {
  sender: UserRow;
  recipient: UserRow;
  content: string;
  client?: string;
  markAsRead?: Iterable<number>;
}

/** How an internal send renders: inside the caller's transaction, which may have created channels. */
async function internalRenderScope(
  app: App,
  tx: Tx,
  realm: RealmSnapshot,
  sender: UserRow,
): Promise<RenderScope> {
  return {
    knex: tx.knex,
    realm,
    channels: isSystemBot(sender) ? null : await app.channels.get(tx.knex, realm.id),
    sender,
    realmUrl: realmUrl(app.config),
    now: () => new Date(app.clock.nowMs()),
  };
}

/**
 * Sends a message to a channel's topic inside the caller's transaction (notices);
 * returns the new message's ID. The caller has decided it may be sent; recipients are
 * the channel's subscribers as the transaction sees them.
 */
export async function doSendMessage(app: App, tx: Tx, input: ChannelMessageInput): Promise<number> {
  const { sender, channel } = input;
  const realm = input.realm ?? (await app.realms.get(tx.knex, channel.realm_id));
  const content = normalizeContent(input.content);
  const topic = truncateTopic(input.topic);
  // Read through the transaction: subscriptions made earlier in it count.
  const subscriberIds = await tx
    .knex("subscriptions as s")
    .join("users as u", "u.id", "s.user_id")
    .where({ "s.stream_id": channel.id, "s.active": true, "u.is_active": true })
    .orderBy("s.user_id")
    .pluck<number[]>("s.user_id");
  const rendered = await renderForSend(await internalRenderScope(app, tx, realm, sender), content);
  const participants = rendered.mentionsTopicWildcard
    ? new Set([...(await topicParticipantIds(tx.knex, channel.id, topic)), sender.id])
    : undefined;
  const userFlags = recipientFlags(subscriberIds, {
    isPrivate: false,
    readBy: new Set([sender.id, ...(input.markAsRead ?? [])]),
    mentions: mentionsOf(realm, rendered, participants),
  });
  const [id] = await doSendMessages(app, tx, [
    {
      realm,
      sender,
      recipient: { type: "stream", channel },
      topic,
      content,
      rendered,
      client: input.client ?? INTERNAL_CLIENT,
      displayRecipient: channel.name,
      topicLinks: topicLinks(topic, await linkifiersOf(tx.knex, channel.realm_id)),
      userFlags,
    },
  ]);
  return id!;
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

/** Sends a one-to-one direct message inside the caller's transaction; returns its ID. */
export async function doSendDirectMessage(app: App, tx: Tx, input: DirectMessageInput): Promise<number> {
  const { sender, recipient } = input;
  const realm = await app.realms.get(tx.knex, recipient.realm_id);
  const content = normalizeContent(input.content);
  const rendered = await renderForSend(await internalRenderScope(app, tx, realm, sender), content);
  const participants = sender.id === recipient.id ? [sender] : [sender, recipient];
  const target: MessageRecipient = { type: "personal", userId: recipient.id };
  const userFlags = recipientFlags(
    participants.filter((u) => bool(u.is_active)).map((u) => u.id),
    {
      isPrivate: true,
      readBy: new Set([sender.id, ...(input.markAsRead ?? [])]),
      mentions: mentionsOf(realm, rendered),
    },
  );
  const [id] = await doSendMessages(app, tx, [
    {
      realm,
      sender,
      recipient: target,
      topic: "",
      content,
      rendered,
      client: input.client ?? INTERNAL_CLIENT,
      displayRecipient: directDisplayRecipient(participants, target),
      topicLinks: [],
      userFlags,
    },
  ]);
  return id!;
}

// ---- POST /messages ----

export interface SendMessageRequest {
  type: "stream" | "private";
  /** Raw `to`: a channel name or ID, or direct message recipients (IDs or emails). */
  to?: string;
  /** Raw topic (`topic` or `subject`). */
  topic?: string;
  content: string;
  /** Sending client's name. */
  client: string;
  /** Mark the sender's copy read; default: only for Zulip's own UI clients. */
  readBySender?: boolean;
  localId?: string;
  queueId?: string;
}

const channelDoesNotExist = (name: string) =>
  new JsonableError(`Channel '${escapeHtml(name)}' does not exist`, "STREAM_DOES_NOT_EXIST", 400, {
    stream: escapeHtml(name),
  });
const channelIdDoesNotExist = (id: number) =>
  new JsonableError(`Channel with ID '${id}' does not exist`, "STREAM_DOES_NOT_EXIST", 400, {
    stream_id: id,
  });

/** Zulip's validate_stream_name_with_pm_notification / validate_stream_id_with_pm_notification. */
function channelForSend(channels: ChannelSnapshot, realmId: number, indicator: string | number): ChannelRow {
  if (typeof indicator === "number") {
    const channel = channels.channel(indicator);
    if (!channel || channel.realm_id !== realmId) throw channelIdDoesNotExist(indicator);
    return channel;
  }
  const name = checkChannelName(indicator);
  const channel = channels.channelByName(name);
  if (!channel || channel.realm_id !== realmId) throw channelDoesNotExist(name);
  return channel;
}

/** The sender's bot owner, whose permissions a bot may use. */
const botOwner = (realm: RealmSnapshot, sender: UserRow) =>
  bool(sender.is_bot) && sender.bot_owner_id !== null ? realm.user(sender.bot_owner_id) : undefined;

/** Zulip's check_for_can_create_topic_group_violation. */
async function checkCanCreateTopic(
  knex: Knex,
  realm: RealmSnapshot,
  sender: UserRow,
  channel: ChannelRow,
  topic: string,
): Promise<void> {
  if (isSystemBot(sender)) return;
  if (channel.can_create_topic_group_id === realm.systemGroupId("role:everyone")) return;
  const existing = await knex("messages")
    .where({ stream_id: channel.id, topic_key: topic.toLowerCase() })
    .first<{ id: number } | undefined>("id");
  if (existing) return;
  const may = (user: UserRow) => userHasChannelPermission(realm, user, channel, "can_create_topic_group");
  const owner = botOwner(realm, sender);
  if (may(sender) || (owner && may(owner))) return;
  throw badRequest("You do not have permission to create new topics in this channel.");
}

/** Zulip's topics_policy checks (the channel's, or with `inherit` the organization's). */
function checkTopicsPolicy(realm: RealmSnapshot, channel: ChannelRow, topic: string): void {
  const policy = channel.topics_policy === "inherit" ? realm.realm.topics_policy : channel.topics_policy;
  const name = emptyTopicDisplayName(realm.realm);
  if (policy === "disable_empty_topic" && topic === "") {
    throw badRequest(`Sending messages to the ${name} topic is not allowed in this channel.`);
  }
  if (policy === "empty_topic_only" && topic !== "") {
    throw badRequest(`Only the ${name} topic is allowed in this channel.`);
  }
}

/** Zulip's check_user_group_mention_allowed. */
function checkGroupMentions(realm: RealmSnapshot, sender: UserRow, groupIds: Iterable<number>): void {
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

const mayMentionManyUsers = (realm: RealmSnapshot, sender: UserRow) =>
  userHasRealmPermission(realm, sender, "can_mention_many_users_group");

/** A direct message recipient by ID: any user of the realm, or a system bot. */
function directRecipientById(realm: RealmSnapshot, userId: number): UserRow {
  const user = realm.userOrSystemBot(userId);
  if (!user) throw badRequest(`Invalid user ID ${userId}`);
  return user;
}

/** By API email, or by real email where the sender may see it. */
function directRecipientByEmail(realm: RealmSnapshot, sender: UserRow, email: string): UserRow {
  const key = email.toLowerCase();
  const user = realm.userByEmail(email) ?? realm.systemBots.find((bot) => bot.email.toLowerCase() === key);
  if (
    user &&
    (user.email.toLowerCase() === key ||
      (user.delivery_email.toLowerCase() === key && canSeeDeliveryEmail(sender, user)))
  ) {
    return user;
  }
  throw badRequest(`Invalid email '${email}'`);
}

/** Zulip's check_can_send_direct_message. */
async function checkCanSendDirectMessage(
  knex: Knex,
  realm: RealmSnapshot,
  sender: UserRow,
  recipients: readonly UserRow[],
  target: MessageRecipient,
): Promise<void> {
  if (bool(sender.is_bot)) return;
  if (recipients.every((user) => bool(user.is_bot) || user.id === sender.id)) return;
  const involved = [...recipients, sender];
  if (!involved.some((user) => userHasRealmPermission(realm, user, "direct_message_permission_group"))) {
    const nobody = realm.realm.direct_message_permission_group_id === realm.systemGroupId("role:nobody");
    throw badRequest(
      nobody
        ? "Direct messages are disabled in this organization."
        : "This conversation does not include any users who can authorize it.",
    );
  }
  if (userHasRealmPermission(realm, sender, "direct_message_initiator_group")) return;
  if (!(await conversationExists(knex, realm, sender, target))) {
    throw badRequest("You do not have permission to initiate direct message conversations.");
  }
}

/** Has anyone written in this direct message conversation before? */
async function conversationExists(
  knex: Knex,
  realm: RealmSnapshot,
  sender: UserRow,
  target: MessageRecipient,
): Promise<boolean> {
  if (target.type === "group") {
    const row = await knex("direct_message_groups as g")
      .join("recipients as r", "r.type_id", "g.id")
      .join("messages as m", "m.recipient_id", "r.id")
      .where({ "g.realm_id": realm.id, "g.user_ids_key": target.userIds.join(","), "r.type": 3 })
      .first<{ id: number } | undefined>("m.id");
    return row !== undefined;
  }
  if (target.type !== "personal") return false;
  const recipients = await knex("recipients")
    .where({ type: RECIPIENT_TYPE.PERSONAL })
    .whereIn("type_id", [sender.id, target.userId])
    .select<Array<{ id: number; type_id: number }>>("id", "type_id");
  const recipientOf = (userId: number) => recipients.find((r) => r.type_id === userId)?.id ?? -1;
  const row = await knex("messages")
    .where({ sender_id: sender.id, recipient_id: recipientOf(target.userId) })
    .orWhere({ sender_id: target.userId, recipient_id: recipientOf(sender.id) })
    .first<{ id: number } | undefined>("id");
  return row !== undefined;
}

function requestRenderScope(app: App, world: ChannelWorld, sender: UserRow): RenderScope {
  return {
    knex: app.knex,
    realm: world.realm,
    channels: world.channels,
    sender,
    realmUrl: realmUrl(app.config),
    now: () => new Date(app.clock.nowMs()),
  };
}

/**
 * Everything POST /messages decides before writing (Zulip's Addressee.legacy_build and
 * check_message, in their order): the addressee, the content, who may post where, the
 * rendering and its mention permissions, and every recipient's flags.
 */
export async function prepareMessage(
  app: App,
  sender: UserRow,
  req: SendMessageRequest,
): Promise<PreparedMessage> {
  const world = await loadWorld(app, app.knex, sender.realm_id);
  const { realm } = world;
  const readBySender = req.readBySender ?? defaultReadBySender(req.client);
  const readBy = new Set(readBySender ? [sender.id] : []);
  const echo =
    req.localId !== undefined && req.queueId !== undefined
      ? { localId: req.localId, queueId: req.queueId }
      : undefined;

  if (req.type === "stream") {
    let indicator: string | number | undefined =
      req.to !== undefined ? extractChannelIndicator(req.to) : undefined;
    if (indicator === undefined) {
      if (sender.default_sending_stream_id === null) throw badRequest("Missing channel");
      indicator = sender.default_sending_stream_id;
    }
    if (req.topic === undefined) throw badRequest("Missing topic");
    const checkedTopic = checkTopic(req.topic, emptyTopicDisplayName(realm.realm));
    const content = normalizeContent(req.content);
    const topic = truncateTopic(checkedTopic);
    const channel = channelForSend(world.channels, realm.id, indicator);
    checkCanPostToChannel(world, sender, channel);
    await checkCanCreateTopic(app.knex, realm, sender, channel, topic);
    checkTopicsPolicy(realm, channel, topic);

    const rendered = await renderForSend(requestRenderScope(app, world, sender), content);
    const subscriberIds = world.channels.activeSubscriberIds(realm, channel.id);
    if (
      rendered.mentionsChannelWildcard &&
      subscriberIds.length > WILDCARD_MENTION_THRESHOLD &&
      !mayMentionManyUsers(realm, sender)
    ) {
      throw new JsonableError(
        "You do not have permission to use channel wildcard mentions in this channel.",
        "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
      );
    }
    let participants: Set<number> | undefined;
    if (rendered.mentionsTopicWildcard) {
      participants = await topicParticipantIds(app.knex, channel.id, topic);
      participants.add(sender.id);
      if (participants.size > WILDCARD_MENTION_THRESHOLD && !mayMentionManyUsers(realm, sender)) {
        throw new JsonableError(
          "You do not have permission to use topic wildcard mentions in this topic.",
          "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
        );
      }
    }
    checkGroupMentions(realm, sender, rendered.mentionedGroupIds);
    return {
      realm,
      sender,
      recipient: { type: "stream", channel },
      topic,
      content,
      rendered,
      client: req.client,
      displayRecipient: channel.name,
      topicLinks: topicLinks(topic, await linkifiersOf(app.knex, realm.id)),
      userFlags: recipientFlags(subscriberIds, {
        isPrivate: false,
        readBy,
        mentions: mentionsOf(realm, rendered, participants),
      }),
      ...(echo ? { echo } : {}),
    };
  }

  const to = req.to !== undefined ? extractDirectRecipients(req.to) : [];
  if (to.length === 0) throw badRequest("Message must have recipients");
  const recipients = to.map((key) =>
    typeof key === "number" ? directRecipientById(realm, key) : directRecipientByEmail(realm, sender, key),
  );
  const content = normalizeContent(req.content);
  for (const user of recipients) {
    if (!bool(user.is_active) && !bool(user.is_mirror_dummy)) {
      throw badRequest(`'${user.email}' is no longer using Zulip.`);
    }
  }
  const participantsById = new Map<number, UserRow>([[sender.id, sender]]);
  for (const user of recipients) participantsById.set(user.id, user);
  const participants = [...participantsById.values()];
  const target: MessageRecipient =
    participants.length <= 2
      ? { type: "personal", userId: (participants.find((u) => u.id !== sender.id) ?? sender).id }
      : { type: "group", userIds: participants.map((u) => u.id).sort((a, b) => a - b) };
  await checkCanSendDirectMessage(app.knex, realm, sender, recipients, target);

  const rendered = await renderForSend(requestRenderScope(app, world, sender), content);
  checkGroupMentions(realm, sender, rendered.mentionedGroupIds);
  return {
    realm,
    sender,
    recipient: target,
    topic: "",
    content,
    rendered,
    client: req.client,
    displayRecipient: directDisplayRecipient(participants, target),
    topicLinks: [],
    userFlags: recipientFlags(
      participants.filter((u) => bool(u.is_active)).map((u) => u.id),
      { isPrivate: true, readBy, mentions: mentionsOf(realm, rendered) },
    ),
    ...(echo ? { echo } : {}),
  };
}

const sendCommits = new WeakMap<App, GroupCommit<PreparedMessage, number>>();

/**
 * POST /messages: checks and renders, then writes through the app's group commit, so
 * concurrent sends share a transaction; returns the new message's ID once it is durable.
 */
export async function checkSendMessage(app: App, sender: UserRow, req: SendMessageRequest): Promise<number> {
  const prepared = await prepareMessage(app, sender, req);
  let commits = sendCommits.get(app);
  if (!commits) {
    commits = new GroupCommit(app.db, (tx, messages) => doSendMessages(app, tx, messages));
    sendCommits.set(app, commits);
  }
  return commits.submit(prepared);
}
