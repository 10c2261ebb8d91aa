import type { App } from "../app.js";
import { bulkInsert } from "../db/insert.js";
import { int, type DbBigInt } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { emailCandidates, emailTrigger, type EmailTrigger } from "../lib/missed-message-triggers.js";
import type { PreparedMessage } from "../lib/prepared-message.js";
import { VISIBILITY } from "../lib/user-topics.js";

/**
 * Zulip's maybe_enqueue_notifications, for email: which recipients of new messages are
 * off (no live event queue that receives messages) and would be emailed, written to
 * `missed_message_notifications` in the messages' own transaction (one bulk insert), so
 * a committed message always gets its notifications and a rolled-back one none. The
 * worker (missed-message-emails.ts) emails each user's batch when it falls due: as in
 * Zulip's MissedMessageWorker, a user's first pending notification is due after their own
 * email_notifications_batching_period_seconds (Zulip's default 120 s) and later ones join
 * that batch, due with it, so a change of the setting applies from the next batch.
 *
 * Who is off is decided here from this process's queues, in memory. With several
 * processes a user's queue may live in another one (and an admin command serves none),
 * so every candidate is written, not `seen_off`, and the worker asks the queues when
 * the batch falls due.
 */
export async function queueMissedMessageNotifications(
  app: App,
  tx: Tx,
  messages: readonly PreparedMessage[],
  messageIds: readonly number[],
): Promise<void> {
  const seenOff = app.events.serving && !app.events.replicated;
  const isOff = seenOff ? (userId: number) => !app.events.receivesMessagesHere(userId) : () => true;
  const sentAt = app.clock.nowMs();
  const rows: Array<[number, number, number, EmailTrigger, boolean, number, number]> = [];
  const periods = new Map<number, number>();
  for (const [i, message] of messages.entries()) {
    const candidates = emailCandidates(message, isOff);
    if (candidates.length === 0) continue;
    const { realm, recipient } = message;
    const channels = recipient.type === "stream" ? await app.channels.get(tx.knex, realm.id) : null;
    const policies =
      recipient.type === "stream" ? await topicPolicies(tx, recipient.channel.id, message.topic) : null;
    const ctx = {
      user: (userId: number) => realm.user(userId),
      subscription: (userId: number) =>
        recipient.type === "stream" ? channels?.subscription(userId, recipient.channel.id) : undefined,
      topicPolicy: (userId: number) => policies?.get(userId) ?? VISIBILITY.INHERIT,
    };
    for (const userId of candidates) {
      const trigger = emailTrigger(message, userId, ctx);
      if (!trigger) continue;
      rows.push([realm.id, userId, messageIds[i]!, trigger, seenOff, sentAt, 0]);
      periods.set(userId, realm.user(userId)!.email_notifications_batching_period_seconds * 1000);
    }
  }
  if (rows.length === 0) return;
  // A user's batch already pending keeps its time; otherwise one starts now.
  const due = await pendingDueTimes(tx, [...periods.keys()]);
  for (const [userId, period] of periods) if (!due.has(userId)) due.set(userId, sentAt + period);
  for (const row of rows) row[6] = due.get(row[1])!;
  await bulkInsert(
    tx.knex,
    "missed_message_notifications",
    ["realm_id", "user_id", "message_id", "trigger", "seen_off", "sent_at", "due_at"],
    rows,
  );
  // The worker caps each batch at missed_message_email_delay_secs after its first message.
  const capAt = sentAt + app.config.missed_message_email_delay_secs * 1000;
  const firstDueSecs = rows.reduce((first, row) => Math.min(first, row[6], capAt), Infinity) / 1000;
  tx.afterCommit(() => app.missedMessageEmails.noteDue(firstDueSecs));
}

/** When each of these users' pending batch is due, for those who have one (the writes are serialized). */
async function pendingDueTimes(tx: Tx, userIds: readonly number[]): Promise<Map<number, number>> {
  const rows = await tx
    .knex("missed_message_notifications")
    .whereIn("user_id", userIds)
    .groupBy("user_id")
    .select<Array<{ user_id: number; due_at: DbBigInt }>>("user_id", tx.knex.raw("MIN(due_at) AS due_at"));
  return new Map(rows.map((row) => [row.user_id, int(row.due_at)]));
}

/** Every user's visibility policy for one topic: one indexed query (user_topics_stream_topic). */
async function topicPolicies(tx: Tx, channelId: number, topic: string): Promise<Map<number, number>> {
  const rows = await tx
    .knex("user_topics")
    .where({ stream_id: channelId, topic_key: topic.toLowerCase() })
    .select<Array<{ user_id: number; visibility_policy: number }>>("user_id", "visibility_policy");
  return new Map(rows.map((row) => [row.user_id, row.visibility_policy]));
}
