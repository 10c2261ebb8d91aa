import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import { badRequest, resourceNotFound } from "../errors.js";
import { validateTopic, defaultReadBySender, truncateTopic } from "../lib/message-content.js";
import type { PreparedMessage } from "../lib/prepared-message.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { scheduledMessageEvents } from "../presenters/events/user-data.js";
import {
  DELIVERY_TYPE,
  presentScheduledMessage,
  type ScheduledMessageRow,
} from "../presenters/scheduled-messages.js";
import { prepareMessage } from "./message-send.js";

/**
 * Messages sent later (Zulip's zerver/actions/scheduled_messages.py): a scheduled
 * message is checked and rendered like POST /messages when it is scheduled or edited,
 * stored, and checked again when it is delivered (actions/scheduled-delivery.ts).
 */

export type ScheduledRecipientType = ScheduledMessageRow["recipient_type"];

/** Zulip's DeliveryTimeNotInFutureError. */
export const deliveryTimeNotInFuture = () => badRequest("Scheduled delivery time must be in the future.");

/** The delivery time must be after now (to the millisecond, as Zulip compares datetimes). */
export function validateDeliveryTime(app: App, unixSeconds: number): void {
  if (unixSeconds * 1000 <= app.clock.nowMs()) throw deliveryTimeNotInFuture();
}

/** Zulip's extract_stream_id / extract_direct_message_recipient_ids, as POST /messages' `to`. */
function addresseeText(type: ScheduledRecipientType, to: number | number[]): string {
  if (type === "stream") {
    if (Array.isArray(to)) throw badRequest("Invalid data type for channel ID");
    return JSON.stringify(to);
  }
  if (!Array.isArray(to)) throw badRequest("Invalid data type for recipients");
  return JSON.stringify([...new Set(to)]);
}

/** The stored addressee: the channel and topic, or the user IDs as the API lists them. */
export function addresseeColumns(prepared: PreparedMessage) {
  const { recipient, sender } = prepared;
  switch (recipient.type) {
    case "stream":
      return {
        recipient_type: "stream" as const,
        stream_id: recipient.channel.id,
        to_user_ids: null,
        topic: prepared.topic,
      };
    case "personal":
      return {
        recipient_type: "private" as const,
        stream_id: null,
        to_user_ids: `[${recipient.userId}]`,
        topic: "",
      };
    case "group":
      return {
        recipient_type: "private" as const,
        stream_id: null,
        to_user_ids: JSON.stringify(recipient.userIds.filter((id) => id !== sender.id)),
        topic: "",
      };
  }
}

/** What a stored scheduled message is sent as, for POST /messages' checks. */
export const storedAddressee = (row: ScheduledMessageRow): string =>
  row.recipient_type === "stream" ? String(row.stream_id) : (row.to_user_ids ?? "[]");

const isMessageToSelf = (prepared: PreparedMessage) =>
  prepared.recipient.type === "personal" && prepared.recipient.userId === prepared.sender.id;

/** After a commit: the delivery timer learns of an undelivered item's time. */
export function noteDue(app: App, tx: Tx, row: Pick<ScheduledMessageRow, "scheduled_timestamp">): void {
  tx.afterCommit(() => app.scheduledDelivery.noteDue(Number(row.scheduled_timestamp)));
}

export interface ScheduleRequest {
  type: ScheduledRecipientType;
  to: number | number[];
  topic?: string;
  content: string;
  deliverAt: number;
  readBySender?: boolean;
  client: string;
}

/** POST /scheduled_messages (Zulip's check_schedule_message); returns the new ID. */
export async function checkScheduleMessage(app: App, sender: UserRow, req: ScheduleRequest): Promise<number> {
  validateDeliveryTime(app, req.deliverAt);
  const to = addresseeText(req.type, req.to);
  const prepared = await prepareMessage(app, sender, {
    type: req.type,
    to,
    topic: req.topic,
    content: req.content,
    client: req.client,
  });
  // Zulip's legacy default: UI clients' messages start read, unless sent to oneself.
  const readBySender = req.readBySender ?? (defaultReadBySender(req.client) && !isMessageToSelf(prepared));
  return app.db.transaction(async (tx) => {
    const fields = {
      realm_id: sender.realm_id,
      sender_id: sender.id,
      delivery_type: DELIVERY_TYPE.SEND_LATER,
      ...addresseeColumns(prepared),
      content: prepared.content,
      rendered_content: prepared.rendered.html,
      sending_client: req.client,
      read_by_sender: readBySender,
      scheduled_timestamp: req.deliverAt,
      delivered: false,
      delivered_message_id: null,
      failed: false,
      failure_message: null,
      reminder_target_message_id: null,
      reminder_note: null,
    };
    const id = await insertReturningId(tx.knex, "scheduled_messages", fields);
    const row: ScheduledMessageRow = { id, ...fields };
    tx.sendEventOnCommit(sender.realm_id, scheduledMessageEvents.add(presentScheduledMessage(row)), [
      sender.id,
    ]);
    noteDue(app, tx, row);
    return id;
  });
}

/** Zulip's access_scheduled_message: the user's own "send later" message, delivered or not. */
async function accessScheduledMessage(tx: Tx, user: UserRow, id: number): Promise<ScheduledMessageRow> {
  const row = await tx
    .knex<ScheduledMessageRow>("scheduled_messages")
    .where({ id, sender_id: user.id, delivery_type: DELIVERY_TYPE.SEND_LATER })
    .first();
  if (!row) throw resourceNotFound("Scheduled message does not exist");
  return row;
}

export interface ScheduledMessageChange {
  type?: ScheduledRecipientType;
  to?: number | number[];
  topic?: string;
  content?: string;
  deliverAt?: number;
  client: string;
}

/** The checks of Zulip's update_scheduled_message_backend, before the message is read. */
function validateChangeRequest(app: App, change: ScheduledMessageChange): void {
  const { type, to, topic, content, deliverAt } = change;
  if ([type, to, topic, content, deliverAt].every((value) => value === undefined)) {
    throw badRequest("Nothing to change");
  }
  if (type !== undefined && to === undefined) {
    throw badRequest("Recipient required when updating type of scheduled message.");
  }
  if (type === "stream" && topic === undefined) {
    throw badRequest("Topic required when updating scheduled message type to channel.");
  }
  if (deliverAt !== undefined) validateDeliveryTime(app, deliverAt);
}

/**
 * PATCH /scheduled_messages/{id} (Zulip's edit_scheduled_message). A new addressee or
 * content is checked again as a whole message; a failed message needs a new time and
 * is then pending again.
 */
export async function checkEditScheduledMessage(
  app: App,
  sender: UserRow,
  id: number,
  change: ScheduledMessageChange,
): Promise<void> {
  validateChangeRequest(app, change);
  // One transaction from reading the row to writing it: delivery cannot slip in between.
  await app.db.transaction(async (tx) => {
    const row = await accessScheduledMessage(tx, sender, id);
    if (bool(row.delivered)) throw badRequest("Scheduled message was already sent");
    if (bool(row.failed) && change.deliverAt === undefined) throw deliveryTimeNotInFuture();
    const updates: Partial<ScheduledMessageRow> = {};
    let prepared: PreparedMessage | undefined;
    if (change.type !== undefined || change.to !== undefined || change.content !== undefined) {
      const type = change.type ?? row.recipient_type;
      prepared = await prepareMessage(app, sender, {
        type,
        to: change.to !== undefined ? addresseeText(type, change.to) : storedAddressee(row),
        topic: change.topic ?? row.topic,
        content: change.content ?? row.content,
        client: change.client,
      });
    }
    if (prepared && (change.type !== undefined || change.to !== undefined)) {
      Object.assign(updates, addresseeColumns(prepared));
    } else if (change.topic !== undefined && row.recipient_type === "stream") {
      // Only the topic changes (ignored for direct messages): Zulip's check_stream_topic.
      const realm = await app.realms.get(app.knex, sender.realm_id);
      updates.topic = truncateTopic(validateTopic(change.topic, emptyTopicDisplayName(realm.realm)));
    }
    if (prepared && change.content !== undefined) {
      updates.content = prepared.content;
      updates.rendered_content = prepared.rendered.html;
    }
    if (change.deliverAt !== undefined) updates.scheduled_timestamp = change.deliverAt;
    updates.sending_client = change.client;
    if (bool(row.failed)) {
      updates.failed = false;
      updates.failure_message = null;
    }
    await tx.knex("scheduled_messages").where({ id: row.id }).update(updates);
    const updated: ScheduledMessageRow = { ...row, ...updates };
    tx.sendEventOnCommit(sender.realm_id, scheduledMessageEvents.update(presentScheduledMessage(updated)), [
      sender.id,
    ]);
    noteDue(app, tx, updated);
  });
}

/** DELETE /scheduled_messages/{id}: it will not be sent. */
export async function checkDeleteScheduledMessage(app: App, sender: UserRow, id: number): Promise<void> {
  await app.db.transaction(async (tx) => {
    const row = await accessScheduledMessage(tx, sender, id);
    await tx.knex("scheduled_messages").where({ id: row.id }).delete();
    tx.sendEventOnCommit(sender.realm_id, scheduledMessageEvents.remove(row.id), [sender.id]);
  });
}
