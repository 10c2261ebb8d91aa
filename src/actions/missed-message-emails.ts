import type { Knex } from "knex";
import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import { RECIPIENT_TYPE } from "../db/channel-rows.js";
import { bool, int, type DbBigInt, type DbBool, type UserRow } from "../db/rows.js";
import { channelMessageUrl, directMessageUrl } from "../lib/message-links.js";
import { MESSAGE_FLAG_BITS } from "../lib/message-flags.js";
import { composeMissedMessagesEmail, type MissedConversation } from "../lib/missed-message-email.js";
import type { EmailTrigger } from "../lib/missed-message-triggers.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { plainText } from "../render/plain-text.js";
import type { RealmSnapshot } from "../world/realm.js";
import { queueEmails, type QueuedEmail } from "./email-queue.js";

/**
 * The missed-message email worker (Zulip's MissedMessageWorker and
 * handle_missedmessage_emails), run by the app's timer: once a user's batch is due (its
 * first notification's time plus that user's batching period, at most the server's
 * missed_message_email_delay_secs), all of that user's pending
 * notifications become emails, one per conversation, leaving out messages read or deleted
 * meanwhile.
 *
 * Each user's batch is read and its emails composed outside the write lock (a batch's
 * half-dozen queries, each a trip through the driver, held the lock for 200 ms under load,
 * and every send waited behind it); then one short write transaction deletes the batch,
 * checks its messages are still unread, and queues the emails (queueEmails). Write
 * transactions are serialized (db/tx.ts), and the batch is given up if its delete finds
 * rows gone, so of several processes (or a restart) exactly one emails each batch, with no
 * claim to hold: nothing leaves the transaction.
 */

/** Users taken per run; a run that takes this many runs again at once. */
const USERS_PER_RUN = 100;

/** Zulip's realm_name_in_email_notifications_policy. */
const REALM_NAME_POLICY = { AUTOMATIC: 1, ALWAYS: 2, NEVER: 3 } as const;

/** Another process emailed this batch first. */
class BatchTaken extends Error {}

interface PendingRow {
  id: number;
  realm_id: number;
  message_id: number;
  trigger: EmailTrigger;
  seen_off: DbBool;
}

interface MissedMessage {
  id: number;
  sender_id: number;
  recipient_id: number;
  recipient_type: number;
  recipient_type_id: number;
  stream_id: number | null;
  topic: string;
  rendered_content: string;
}

/** Emails every due batch; returns when the next one falls due (UNIX seconds) or null. */
export async function sendDueMissedMessageEmails(app: App): Promise<number | null> {
  const nowMs = app.clock.nowMs();
  // A batch is due at the time its rows carry (the user's own period: missed-message-queue.ts),
  // or earlier by the server's cap, whoever wrote the rows (an admin command has its own config).
  const capMs = app.config.missed_message_email_delay_secs * 1000;
  const userIds = await app
    .knex("missed_message_notifications")
    .where((due) => {
      void due.where("due_at", "<=", nowMs).orWhere("sent_at", "<=", nowMs - capMs);
    })
    .distinct()
    .limit(USERS_PER_RUN)
    .pluck<number[]>("user_id");
  // For notifications whose sender could not see the user's queues (another worker's, or
  // an admin command's): who has a live queue now, in memory or from the store (one query).
  const online = await app.events.usersReceivingMessages(userIds);
  for (const userId of userIds) {
    try {
      await emailBatch(app, userId, online.has(userId));
    } catch (err) {
      if (!(err instanceof BatchTaken)) throw err;
    }
  }
  if (userIds.length === USERS_PER_RUN) return nowMs / 1000;
  const next = await app
    .knex("missed_message_notifications")
    .first<{ due: DbBigInt | null; sent: DbBigInt | null } | undefined>(
      app.knex.raw("MIN(due_at) AS due, MIN(sent_at) AS sent"),
    );
  if (next?.due == null || next.sent == null) return null;
  return Math.min(int(next.due), int(next.sent) + capMs) / 1000;
}

async function emailBatch(app: App, userId: number, online: boolean): Promise<void> {
  // The whole batch: notifications written after the oldest was due ride along.
  const pending = await app
    .knex("missed_message_notifications")
    .where({ user_id: userId })
    .select<PendingRow[]>("id", "realm_id", "message_id", "trigger", "seen_off");
  if (pending.length === 0) return;
  const composed = await composeBatch(app, app.knex, userId, online, pending);
  await app.db.transaction(async (tx) => {
    const deleted = await tx
      .knex("missed_message_notifications")
      .whereIn(
        "id",
        pending.map((row) => row.id),
      )
      .delete();
    if (deleted !== pending.length) throw new BatchTaken();
    if (composed.messageIds.length === 0) return;
    // A message read or deleted while the emails were composed is left out: compose again (rare).
    const unread = await unreadMessageIds(tx.knex, userId, composed.messageIds);
    const emails =
      unread.length === composed.messageIds.length
        ? composed.emails
        : (await composeBatch(app, tx.knex, userId, online, pending)).emails;
    await queueEmails(app, tx, emails);
  });
}

/** A batch's emails, and the messages they show (none: nothing to send). */
async function composeBatch(
  app: App,
  knex: Knex,
  userId: number,
  online: boolean,
  pending: readonly PendingRow[],
): Promise<{ emails: QueuedEmail[]; messageIds: number[] }> {
  const nothing = { emails: [], messageIds: [] };
  // A user on now drops what was written without knowing whether they were off.
  const kept = online ? pending.filter((row) => bool(row.seen_off)) : pending;
  if (kept.length === 0) return nothing;
  const realm = await app.realms.get(knex, pending[0]!.realm_id);
  const user = realm.user(userId);
  if (!user || !bool(user.is_active) || bool(user.is_bot) || !bool(user.enable_offline_email_notifications))
    return nothing;
  const triggers = new Map(kept.map((row) => [row.message_id, row.trigger]));
  const messages = await unreadMessages(knex, userId, [...triggers.keys()]);
  if (messages.length === 0) return nothing;
  return {
    emails: await emailsFor(app, knex, realm, user, messages, triggers),
    messageIds: messages.map((m) => m.id),
  };
}

/** Which of these messages the user's copy of is still unread. */
function unreadMessageIds(knex: Knex, userId: number, messageIds: readonly number[]): Promise<number[]> {
  return knex("user_messages")
    .where("user_id", userId)
    .whereIn("message_id", messageIds)
    .whereRaw(`(flags & ${MESSAGE_FLAG_BITS.read}) = 0`)
    .pluck("message_id");
}

/** The user's still unread copies of these messages (deleted messages have none), oldest first. */
function unreadMessages(knex: Knex, userId: number, messageIds: readonly number[]): Promise<MissedMessage[]> {
  return knex("user_messages as um")
    .join("messages as m", "m.id", "um.message_id")
    .join("recipients as r", "r.id", "m.recipient_id")
    .where("um.user_id", userId)
    .whereIn("um.message_id", messageIds)
    .whereRaw(`(um.flags & ${MESSAGE_FLAG_BITS.read}) = 0`)
    .orderBy("m.id")
    .select<MissedMessage[]>(
      "m.id",
      "m.sender_id",
      "m.recipient_id",
      "r.type as recipient_type",
      "r.type_id as recipient_type_id",
      "m.stream_id",
      "m.topic",
      "m.rendered_content",
    );
}

/**
 * Zulip's buckets: a channel topic, a direct message group, or one sender's 1:1 messages;
 * one email each, the least recently active conversation first.
 */
async function emailsFor(
  app: App,
  knex: Knex,
  realm: RealmSnapshot,
  user: UserRow,
  messages: readonly MissedMessage[],
  triggers: ReadonlyMap<number, EmailTrigger>,
): Promise<QueuedEmail[]> {
  const buckets = new Map<string, MissedMessage[]>();
  for (const message of messages) {
    const key =
      message.recipient_type === RECIPIENT_TYPE.STREAM
        ? `s:${message.recipient_id}:${message.topic.toLowerCase()}`
        : message.recipient_type === RECIPIENT_TYPE.PERSONAL
          ? `p:${message.sender_id}`
          : `g:${message.recipient_id}`;
    const bucket = buckets.get(key);
    if (bucket) bucket.push(message);
    else buckets.set(key, [message]);
  }
  const serverUrl = realmUrl(app.config);
  const channels = messages.some((m) => m.stream_id !== null) ? await app.channels.get(knex, realm.id) : null;
  const groups = await groupParticipants(
    knex,
    messages
      .filter((m) => m.recipient_type === RECIPIENT_TYPE.DIRECT_MESSAGE_GROUP)
      .map((m) => m.recipient_type_id),
  );
  const realmNameInSubject = await wantsRealmName(knex, user);
  // Zulip's message_content_allowed_in_missedmessage_emails: the realm may forbid it for all.
  const showContent =
    bool(realm.realm.message_content_allowed_in_email_notifications) &&
    bool(user.message_content_in_email_notifications);
  const nameOf = (id: number) => realm.userOrSystemBot(id)?.full_name ?? "Unknown user";
  const emails: QueuedEmail[] = [];
  // Buckets keep the order of their oldest message; Zulip sends the least recently active first.
  const ordered = [...buckets.values()].sort((a, b) => a.at(-1)!.id - b.at(-1)!.id);
  for (const bucket of ordered) {
    const first = bucket[0]!;
    let conversation: MissedConversation;
    let narrowUrl: string;
    if (first.recipient_type === RECIPIENT_TYPE.STREAM) {
      const channel = channels?.channel(first.stream_id!);
      if (!channel) continue;
      const topic = first.topic === "" ? emptyTopicDisplayName(realm.realm) : first.topic;
      conversation = { type: "stream", channelName: channel.name, topic };
      narrowUrl = channelMessageUrl(serverUrl, channel, first.topic, first.id);
    } else if (first.recipient_type === RECIPIENT_TYPE.PERSONAL) {
      conversation = { type: "private" };
      narrowUrl = directMessageUrl(serverUrl, [first.sender_id], first.id);
    } else {
      const others = (groups.get(first.recipient_type_id) ?? []).filter((id) => id !== user.id);
      conversation = { type: "group", otherNames: others.map(nameOf) };
      narrowUrl = directMessageUrl(serverUrl, others, first.id);
    }
    const content = composeMissedMessagesEmail({
      realmName: realm.realm.name,
      serverUrl,
      conversation,
      messages: bucket.map((m) => ({ senderName: nameOf(m.sender_id), text: plainText(m.rendered_content) })),
      triggers: new Set(bucket.map((m) => triggers.get(m.id)!)),
      showContent,
      realmNameInSubject,
      narrowUrl,
    });
    emails.push({ realmId: realm.id, to: user.delivery_email, content });
  }
  return emails;
}

/** Participants of direct message groups, by group ID (the recipient's type_id). */
async function groupParticipants(knex: Knex, groupIds: readonly number[]): Promise<Map<number, number[]>> {
  if (groupIds.length === 0) return new Map();
  const rows = await knex("direct_message_groups")
    .whereIn("id", [...new Set(groupIds)])
    .select<Array<{ id: number; user_ids_key: string }>>("id", "user_ids_key");
  return new Map(rows.map((row) => [row.id, row.user_ids_key.split(",").map(Number)]));
}

/** Zulip's realm_name_in_notifications: automatic names the realm when the address has accounts in several. */
async function wantsRealmName(knex: Knex, user: UserRow): Promise<boolean> {
  const policy = user.realm_name_in_email_notifications_policy;
  if (policy === REALM_NAME_POLICY.ALWAYS) return true;
  if (policy === REALM_NAME_POLICY.NEVER) return false;
  const accounts = await knex("users")
    .where({ delivery_email: user.delivery_email, is_active: true })
    .count<Array<{ n: number | string }>>("id as n");
  return Number(accounts[0]?.n ?? 0) > 1;
}
