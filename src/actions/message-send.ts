import type { App } from "../app.js";
import type { ChannelRow } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { requireCanPostToChannel } from "../permissions/channel-access.js";
import { loadWorld } from "../cache/world.js";
import {
  validateTopic,
  defaultReadBySender,
  extractChannelIndicator,
  extractDirectRecipients,
  normalizeContent,
  truncateTopic,
} from "../lib/message-content.js";
import { MESSAGE_FLAG_BITS } from "../lib/message-flags.js";
import { isSystemBot } from "../lib/message-render.js";
import type { MessageRecipient, PreparedMessage } from "../lib/prepared-message.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { parseWidgetContent } from "../lib/widget-content.js";
import type { RealmSnapshot } from "../world/realm.js";
import {
  channelForSend,
  requireCanCreateTopic,
  requireCanSendDirectMessage,
  validateTopicForPolicy,
  directRecipientByEmail,
  directRecipientById,
} from "./message-addressee.js";
import { prepareMessageTo } from "./message-prepare.js";
import { doSendMessages } from "./message-write.js";

/**
 * Sending messages, in two parts as Zulip's check_message / do_send_messages:
 *
 * - preparation: resolve the addressee and check the sender may write there (POST
 *   /messages only, message-addressee.ts), then render and compute each recipient's
 *   flags (message-prepare.ts, one path for every sender), reading cached snapshots
 *   and a few bulk queries, outside any transaction for requests;
 * - doSendMessages (message-write.ts): write prepared messages and queue their events.
 */

/** The client name of messages the server sends itself. */
export const INTERNAL_CLIENT = "Internal";

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
  /** Users whose copy starts starred. */
  starredFor?: Iterable<number>;
  /** Zulip's disable_external_notifications: no missed-message email for it. */
  disableExternalNotifications?: boolean;
}

export interface DirectMessageToUsersInput extends Omit<DirectMessageInput, "recipient"> {
  /** Everyone the message goes to; the sender is one of the conversation whether listed or not. */
  recipients: readonly UserRow[];
}

type DirectTarget = Exclude<MessageRecipient, { type: "stream" }>;

/**
 * A direct message's conversation, as Zulip's Addressee chooses it: the sender and the
 * recipients, once each; up to two people is one-to-one (with the other, or with oneself),
 * more is a group of all of them.
 */
export function directConversation(
  sender: UserRow,
  recipients: readonly UserRow[],
): { participants: UserRow[]; target: DirectTarget } {
  const byId = new Map<number, UserRow>([[sender.id, sender]]);
  for (const user of recipients) byId.set(user.id, user);
  const participants = [...byId.values()];
  const target: DirectTarget =
    participants.length <= 2
      ? { type: "personal", userId: (participants.find((u) => u.id !== sender.id) ?? sender).id }
      : { type: "group", userIds: participants.map((u) => u.id).sort((a, b) => a - b) };
  return { participants, target };
}

/**
 * How an internal send reads: through the caller's transaction, which may have created
 * channels or subscriptions; system bots render channel links from it too.
 */
async function internalScope(app: App, tx: Tx, realm: RealmSnapshot, sender: UserRow) {
  return {
    knex: tx.knex,
    realm,
    channels: isSystemBot(sender) ? null : await app.channels.get(tx.knex, realm.id),
  };
}

/** A server-sent message: no permission checks, read by the sender and `markAsRead`. */
const internalDraft = (input: ChannelMessageInput | DirectMessageToUsersInput) => ({
  sender: input.sender,
  content: normalizeContent(input.content),
  client: input.client ?? INTERNAL_CLIENT,
  readBy: new Set([input.sender.id, ...(input.markAsRead ?? [])]),
  checkMentions: false,
});

/**
 * Sends a message to a channel's topic inside the caller's transaction (notices);
 * returns the new message's ID. The caller has decided it may be sent; recipients are
 * the channel's subscribers as the transaction sees them.
 */
export async function doSendMessage(app: App, tx: Tx, input: ChannelMessageInput): Promise<number> {
  const { sender, channel } = input;
  const realm = input.realm ?? (await app.realms.get(tx.knex, channel.realm_id));
  const draft = internalDraft(input);
  // Read through the transaction: subscriptions made earlier in it count.
  const subscriberIds = await tx
    .knex("subscriptions as s")
    .join("users as u", "u.id", "s.user_id")
    .where({ "s.stream_id": channel.id, "s.active": true, "u.is_active": true })
    .orderBy("s.user_id")
    .pluck<number[]>("s.user_id");
  const prepared = await prepareMessageTo(app, await internalScope(app, tx, realm, sender), draft, {
    kind: "channel",
    channel,
    topic: truncateTopic(input.topic),
    subscriberIds,
  });
  const [id] = await doSendMessages(app, tx, [prepared]);
  return id!;
}

/** Sends a one-to-one direct message inside the caller's transaction; returns its ID. */
export function doSendDirectMessage(app: App, tx: Tx, input: DirectMessageInput): Promise<number> {
  return doSendDirectMessageToUsers(app, tx, { ...input, recipients: [input.recipient] });
}

/**
 * Sends a direct message to `recipients` inside the caller's transaction, one-to-one or
 * to a group as POST /messages chooses (directConversation); returns its ID.
 */
export async function doSendDirectMessageToUsers(
  app: App,
  tx: Tx,
  input: DirectMessageToUsersInput,
): Promise<number> {
  const { sender } = input;
  const realm = await app.realms.get(tx.knex, sender.realm_id);
  const { participants, target } = directConversation(sender, input.recipients);
  const prepared = await prepareMessageTo(
    app,
    await internalScope(app, tx, realm, sender),
    internalDraft(input),
    {
      kind: "direct",
      recipient: target,
      participants,
    },
  );
  const userFlags = new Map(prepared.userFlags);
  for (const userId of input.starredFor ?? []) {
    const flags = userFlags.get(userId);
    if (flags !== undefined) userFlags.set(userId, flags | MESSAGE_FLAG_BITS.starred);
  }
  const [id] = await doSendMessages(app, tx, [
    { ...prepared, userFlags, disableExternalNotifications: input.disableExternalNotifications ?? false },
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
  /** Raw `widget_content` (JSON), checked after the addressee as Zulip's check_message does. */
  widgetContent?: string;
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
  const draft = {
    sender,
    client: req.client,
    readBy: new Set(readBySender ? [sender.id] : []),
    checkMentions: true,
    ...(req.localId !== undefined && req.queueId !== undefined
      ? { echo: { localId: req.localId, queueId: req.queueId } }
      : {}),
  };
  const scope = { knex: app.knex, realm, channels: world.channels };
  const widgetOf = () =>
    req.widgetContent === undefined ? {} : { widget: parseWidgetContent(req.widgetContent) };

  if (req.type === "stream") {
    let indicator: string | number | undefined =
      req.to !== undefined ? extractChannelIndicator(req.to) : undefined;
    if (indicator === undefined) {
      if (sender.default_sending_stream_id === null) throw badRequest("Missing channel");
      indicator = sender.default_sending_stream_id;
    }
    if (req.topic === undefined) throw badRequest("Missing topic");
    const checkedTopic = validateTopic(req.topic, emptyTopicDisplayName(realm.realm));
    const content = normalizeContent(req.content);
    const topic = truncateTopic(checkedTopic);
    const channel = channelForSend(world.channels, realm.id, indicator);
    requireCanPostToChannel(world, sender, channel);
    await requireCanCreateTopic(app.knex, realm, sender, channel, topic);
    validateTopicForPolicy(realm, channel, topic);
    return prepareMessageTo(
      app,
      scope,
      { ...draft, content, ...widgetOf() },
      {
        kind: "channel",
        channel,
        topic,
        subscriberIds: world.channels.activeSubscriberIds(realm, channel.id),
      },
    );
  }

  const to = req.to !== undefined ? extractDirectRecipients(req.to) : [];
  if (to.length === 0) throw badRequest("Message must have recipients");
  const recipients = to.map((key) =>
    typeof key === "number"
      ? directRecipientById(realm, key)
      : directRecipientByEmail(app.config, realm, sender, key),
  );
  const content = normalizeContent(req.content);
  for (const user of recipients) {
    if (!bool(user.is_active) && !bool(user.is_mirror_dummy)) {
      throw badRequest(`'${user.email}' is no longer using Zulip.`);
    }
  }
  const { participants, target } = directConversation(sender, recipients);
  await requireCanSendDirectMessage(app.knex, realm, sender, recipients, target);
  return prepareMessageTo(
    app,
    scope,
    { ...draft, content, ...widgetOf() },
    { kind: "direct", recipient: target, participants },
  );
}

/**
 * POST /messages: checks and renders, then writes through the app's group commit, so
 * concurrent sends share a transaction; returns the new message's ID once it is durable.
 */
export async function checkSendMessage(app: App, sender: UserRow, req: SendMessageRequest): Promise<number> {
  return app.messageSends.submit(await prepareMessage(app, sender, req));
}
