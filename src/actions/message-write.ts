import type { App } from "../app.js";
import { RECIPIENT_TYPE, type ChannelRow } from "../db/channel-rows.js";
import { GroupCommit } from "../db/group-commit.js";
import { bulkInsertIntegers, bulkInsertReturningIds, insertReturningId } from "../db/insert.js";
import { indexMessages } from "../db/search.js";
import type { Db, Tx } from "../db/tx.js";
import { bool } from "../db/rows.js";
import { flagNames } from "../lib/message-flags.js";
import type { MessageRecipient, PreparedMessage } from "../lib/prepared-message.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { pythonJsonDumps, WIDGET_MSG_TYPE, widgetOf } from "../lib/widgets.js";
import { channelViewerIds } from "../permissions/channel-access.js";
import { streamEvents } from "../presenters/events/channels.js";
import { messageEvent } from "../presenters/events/messages.js";
import { presentMessage, type MessageRow } from "../presenters/messages.js";
import { presentSubmessage } from "../presenters/submessages.js";
import { plainText } from "../render/message.js";
import { queueMissedMessageNotifications } from "./missed-message-queue.js";
import { queueOutgoingWebhooks } from "./outgoing-webhook-queue.js";
import { doClaimForSentMessages } from "./uploads.js";
import type { RealmSnapshot } from "../world/realm.js";

/**
 * The write part of sending (Zulip's do_send_messages): given fully prepared messages,
 * write them (message rows, one bulk insert of user_messages rows, the full-text index)
 * and queue their events. It takes a list so several sends can share one transaction.
 */

/**
 * The App's `messageSends`: sends that arrive while one commits share the next
 * transaction. `app` is asked for at the first commit, since the App is still being
 * built when this is.
 */
export function messageSendCommits(db: Db, app: () => App): GroupCommit<PreparedMessage, number> {
  return new GroupCommit(db, async (tx, messages) => {
    const ids = await doSendMessages(app(), tx, messages);
    // Finished webhook deliveries with nothing to post ride along: no commit of their own.
    await app().webhookResults.writeIn(tx, isPlainWebhookResult);
    return ids;
  });
}

/**
 * Finished webhook deliveries (actions/outgoing-webhooks.ts) that only delete their row:
 * they cannot fail, so they may share a send's transaction.
 */
const isPlainWebhookResult = (result: { effects?: unknown }) => result.effects === undefined;

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
 * Each recipient's event extra, `{ flags }`, shared by every recipient with the same flag
 * bits: a send to many recipients builds a handful of them, not one per user. The flags
 * array is frozen; the object is not (V8 copies frozen objects slowly, and messageFlavour
 * spreads it into every queue's event), and nothing writes to it.
 */
const flagsExtras = new Map<number, Readonly<Record<string, unknown>>>();
function flagsExtra(bits: number): Readonly<Record<string, unknown>> {
  let extra = flagsExtras.get(bits);
  if (!extra) flagsExtras.set(bits, (extra = { flags: Object.freeze(flagNames(bits)) }));
  return extra;
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
      // Set by the claims below, when the message links uploaded files the sender may read.
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
  await bulkInsertIntegers(tx.knex, "user_messages", ["user_id", "message_id", "flags"], userMessages);
  await indexMessages(
    tx.knex,
    rows.map((row) => ({ id: row.id, topic: row.topic, text: plainText(row.rendered_content) })),
  );
  await doClaimForSentMessages(
    app,
    tx,
    messages.map((message, i) => ({
      id: rows[i]!.id,
      realmId: message.realm.id,
      sender: message.sender,
      pathIds: message.rendered.potentialAttachmentPathIds,
    })),
  );
  await queueMissedMessageNotifications(
    app,
    tx,
    messages,
    rows.map((row) => row.id),
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
    const widget = message.widget ?? widgetOf(row.content);
    if (widget) presented.submessages = [await doAddWidget(tx, row, pythonJsonDumps(widget))];
    await queueOutgoingWebhooks(app, tx, message, presented);
    const perUser = new Map<number, Record<string, unknown>>();
    for (const [userId, flags] of message.userFlags) perUser.set(userId, flagsExtra(flags));
    tx.sendEventOnCommit(
      realm.id,
      messageEvent(presented, message.sender, emptyTopicDisplayName(realm.realm), {
        echo: message.echo,
        publicChannel: recipient.type === "stream" && !bool(recipient.channel.invite_only),
      }),
      perUser,
    );
  }
  return rows.map((row) => row.id);
}

/**
 * The submessage describing the widget a `/poll` or `/todo` message starts (Zulip's
 * do_widget_post_save_actions); the message event carries it.
 */
async function doAddWidget(tx: Tx, message: MessageRow, content: string) {
  const row = { message_id: message.id, sender_id: message.sender_id, msg_type: WIDGET_MSG_TYPE, content };
  return presentSubmessage({ id: await insertReturningId(tx.knex, "submessages", row), ...row });
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
