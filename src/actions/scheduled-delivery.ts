import type { App } from "../app.js";
import { loadWorld } from "../cache/world.js";
import { nowSeconds } from "../clock.js";
import { claimable, claimRows, releaseClaim } from "../db/claims.js";
import { bool, int, type DbBigInt, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { JsonableError } from "../errors.js";
import { globalTime } from "../lib/message-links.js";
import { isSystemBot } from "../lib/message-render.js";
import { reminderEvents, scheduledMessageEvents } from "../presenters/events/user-data.js";
import {
  DELIVERY_TYPE,
  presentScheduledMessage,
  type ScheduledMessageRow,
} from "../presenters/scheduled-messages.js";
import type { RealmSnapshot } from "../world/realm.js";
import { sendBotDirectMessage } from "./channel-notices.js";
import { doSendDirectMessage, prepareMessage } from "./message-send.js";
import { doSendMessages } from "./message-write.js";
import { notificationBot } from "./notification-bot.js";
import { currentReminderContent } from "./reminders.js";
import { storedAddressee } from "./scheduled-messages.js";

/**
 * Delivering scheduled messages and reminders when they are due (Zulip's
 * try_deliver_one_scheduled_message), called by the app's delivery timer. Each item is
 * sent and marked delivered in one transaction, so a crash either leaves it pending
 * (sent at the next start) or delivered: never sent twice. One that cannot be sent is
 * marked failed, and the sender of a scheduled message is told, as Zulip does.
 *
 * Several processes (workers; servers on several machines over one PostgreSQL) all run
 * the timer: each claims an item (db/claims.ts) before delivering it, so one delivers it
 * and the others move on. The claim of a process that died mid-delivery (its transaction
 * rolled back) runs out after SCHEDULED_LEASE_MS; then the item is delivered by another.
 */

/** How long a claim on an item lasts: far longer than its delivery's one transaction. */
export const SCHEDULED_LEASE_MS = 60_000;

/** What the delivery timer's query reads: it matches the scheduled_messages_pending index. */
const PENDING = "NOT delivered AND NOT failed";

/** Delivers everything due, oldest first; returns when the next item is due (or null). */
export async function deliverDueScheduledMessages(app: App): Promise<number | null> {
  const attempted = new Set<number>();
  for (;;) {
    const nowMs = app.clock.nowMs();
    const due = await claimable(app.knex("scheduled_messages").whereRaw(PENDING), nowMs)
      .where("scheduled_timestamp", "<=", nowSeconds(app.clock))
      .orderBy([{ column: "scheduled_timestamp" }, { column: "id" }])
      .first<{ id: number } | undefined>("id");
    // An attempted item is delivered, failed, rescheduled or claimed by another process,
    // so it cannot come back; the guard only keeps a bug from becoming a spin.
    if (!due || attempted.has(due.id)) break;
    attempted.add(due.id);
    // Another process may have claimed it since it was read: then it is theirs.
    const lease = { nowMs, leaseMs: SCHEDULED_LEASE_MS };
    const claimed = await app.db.transaction((tx) =>
      claimRows(tx.knex, "scheduled_messages", [due.id], lease, (query) => query.whereRaw(PENDING)),
    );
    if (claimed.length === 0) continue;
    await deliverOne(app, due.id);
    await afterAttempt(app, due.id);
  }
  return nextDue(app);
}

/**
 * Every attempt delivers a due item or marks it failed: one still pending was rescheduled
 * during the attempt, and is released for whichever process runs when it falls due. One
 * still due is an error (the timer then waits before it tries again, never spins).
 */
async function afterAttempt(app: App, id: number): Promise<void> {
  const left = await app
    .knex("scheduled_messages")
    .where({ id })
    .whereRaw(PENDING)
    .first<{ scheduled_timestamp: DbBigInt } | undefined>("scheduled_timestamp");
  if (!left) return;
  if (int(left.scheduled_timestamp) <= nowSeconds(app.clock)) {
    throw new Error(`scheduled message ${id} is still pending after delivery`);
  }
  await app.db.transaction(async (tx) => {
    await tx.knex("scheduled_messages").where({ id }).whereRaw(PENDING).update(releaseClaim);
  });
}

/** When the next pending item falls due, or the claim on one (another process's) runs out. */
async function nextDue(app: App): Promise<number | null> {
  const nowMs = app.clock.nowMs();
  // One read after the other: together they took a second read connection, which an
  // idle server then kept.
  const unclaimed = await claimable(app.knex("scheduled_messages").whereRaw(PENDING), nowMs).first<
    { next: DbBigInt | null } | undefined
  >(app.knex.raw("MIN(scheduled_timestamp) AS next"));
  const leaseEnd = await app
    .knex("scheduled_messages")
    .whereRaw(PENDING)
    .where("claimed_until", ">", nowMs)
    .first<{ next: DbBigInt | null } | undefined>(app.knex.raw("MIN(claimed_until) AS next"));
  const times = [
    unclaimed?.next == null ? null : int(unclaimed.next),
    leaseEnd?.next == null ? null : Math.ceil(int(leaseEnd.next) / 1000),
  ].filter((t) => t !== null);
  return times.length === 0 ? null : Math.min(...times);
}

/** Why the sender can no longer send anything (then nobody is told, as in Zulip). */
function senderRefusal(realm: RealmSnapshot, sender: UserRow | undefined): string | null {
  if (bool(realm.realm.deactivated)) return "This organization has been deactivated";
  if (!sender || !bool(sender.is_active)) return "Account is deactivated";
  return null;
}

async function pendingRow(tx: Tx, id: number): Promise<ScheduledMessageRow | undefined> {
  return tx.knex<ScheduledMessageRow>("scheduled_messages").where({ id }).whereRaw(PENDING).first();
}

async function deliverOne(app: App, id: number): Promise<void> {
  try {
    await app.db.transaction(async (tx) => {
      // Edited, deleted or handled since it was found: the next query sees it as it is now.
      const row = await pendingRow(tx, id);
      if (!row || int(row.scheduled_timestamp) > tx.now) return;
      app.logger.info(`sending scheduled message ${row.id} due at ${int(row.scheduled_timestamp)}`);
      const realm = await app.realms.get(app.knex, row.realm_id);
      const sender = realm.user(row.sender_id);
      const refusal = senderRefusal(realm, sender);
      if (refusal) return markFailed(app, tx, realm, row, refusal, false);
      if (row.delivery_type === DELIVERY_TYPE.REMIND) return sendReminder(app, tx, realm, sender!, row);
      // Checked again as a new message: permissions may have changed since it was scheduled.
      let prepared;
      try {
        prepared = await prepareMessage(app, sender!, {
          type: row.recipient_type,
          to: storedAddressee(row),
          topic: row.topic,
          content: row.content,
          client: row.sending_client,
          readBySender: bool(row.read_by_sender),
        });
      } catch (err) {
        if (!(err instanceof JsonableError)) throw err;
        app.logger.info(`scheduled message ${row.id} failed: ${err.message}`);
        return markFailed(app, tx, realm, row, err.message, !isSystemBot(sender!));
      }
      const [messageId] = await doSendMessages(app, tx, [prepared]);
      await markDelivered(tx, row, messageId!);
      tx.sendEventOnCommit(realm.id, scheduledMessageEvents.remove(row.id), [row.sender_id]);
    });
  } catch (err) {
    // Nothing of the attempt was kept (the transaction rolled back): record the failure.
    app.logger.error(`scheduled message ${id} could not be sent`, err);
    await app.db.transaction(async (tx) => {
      const row = await pendingRow(tx, id);
      if (!row) return;
      const realm = await app.realms.get(app.knex, row.realm_id);
      const sender = realm.user(row.sender_id);
      const notify = sender !== undefined && !isSystemBot(sender);
      await markFailed(app, tx, realm, row, "Internal server error", notify);
    });
  }
}

async function markDelivered(tx: Tx, row: ScheduledMessageRow, messageId: number): Promise<void> {
  const updated = await tx
    .knex("scheduled_messages")
    .where({ id: row.id })
    .whereRaw(PENDING)
    .update({ delivered: true, delivered_message_id: messageId, ...releaseClaim });
  // The row was read in this transaction, and transactions run one at a time.
  if (updated !== 1) throw new Error(`scheduled message ${row.id} changed during its delivery`);
}

/**
 * Zulip's send_reminder: the reminder quotes the message as the user can read it now,
 * or, if they no longer can, as it was when the reminder was made.
 */
async function sendReminder(
  app: App,
  tx: Tx,
  realm: RealmSnapshot,
  user: UserRow,
  row: ScheduledMessageRow,
): Promise<void> {
  const world = await loadWorld(app, app.knex, realm);
  const content = (await currentReminderContent(app, world, user, row)) ?? row.content;
  const bot = await notificationBot(app, tx, realm.id);
  const messageId = await doSendDirectMessage(app, tx, { sender: bot, recipient: user, content });
  await markDelivered(tx, row, messageId);
  tx.sendEventOnCommit(realm.id, reminderEvents.remove(row.id), [user.id]);
}

/**
 * Marks an item failed. The sender of a scheduled message learns it from an update event
 * and a Notification Bot message (Zulip's send_failed_scheduled_message_notification);
 * reminders have no such notice.
 */
async function markFailed(
  app: App,
  tx: Tx,
  realm: RealmSnapshot,
  row: ScheduledMessageRow,
  failureMessage: string,
  notify: boolean,
): Promise<void> {
  await tx
    .knex("scheduled_messages")
    .where({ id: row.id })
    .update({ failed: true, failure_message: failureMessage, ...releaseClaim });
  const sender = realm.user(row.sender_id);
  if (!notify || !sender || row.delivery_type !== DELIVERY_TYPE.SEND_LATER) return;
  const failed = { ...row, failed: true, failure_message: failureMessage };
  tx.sendEventOnCommit(realm.id, scheduledMessageEvents.update(presentScheduledMessage(failed)), [sender.id]);
  const content =
    `The message you scheduled for ${globalTime(int(row.scheduled_timestamp))} was not sent ` +
    `because of the following error:\n\n> ${failureMessage}\n\n[View scheduled messages](#scheduled)\n\n`;
  await sendBotDirectMessage(app, tx, sender, content);
}
