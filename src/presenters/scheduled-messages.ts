import { bool, int, jsonColumn, type DbBigInt, type DbBool } from "../db/rows.js";
import type { WireReminder, WireScheduledMessage } from "../wire/records.js";

/** Zulip's ScheduledMessage.delivery_type values. */
export const DELIVERY_TYPE = { SEND_LATER: 1, REMIND: 2 } as const;

export interface ScheduledMessageRow {
  id: number;
  realm_id: number;
  sender_id: number;
  delivery_type: number;
  recipient_type: "stream" | "private";
  stream_id: number | null;
  to_user_ids: string | null;
  topic: string;
  content: string;
  rendered_content: string;
  sending_client: string;
  read_by_sender: DbBool;
  scheduled_timestamp: DbBigInt;
  delivered: DbBool;
  delivered_message_id: number | null;
  failed: DbBool;
  failure_message: string | null;
  reminder_target_message_id: number | null;
  reminder_note: string | null;
}

/** The direct message's user IDs as the API lists them. */
export const directRecipientIds = (row: ScheduledMessageRow): number[] =>
  jsonColumn<number[]>(row.to_user_ids, []);

/** Zulip's ScheduledMessage.to_dict. */
export function presentScheduledMessage(row: ScheduledMessageRow): WireScheduledMessage {
  const common = {
    scheduled_message_id: row.id,
    content: row.content,
    rendered_content: row.rendered_content,
    scheduled_delivery_timestamp: int(row.scheduled_timestamp),
    failed: bool(row.failed),
  };
  if (row.recipient_type === "stream") {
    return { ...common, type: "stream", to: row.stream_id!, topic: row.topic };
  }
  return { ...common, type: "private", to: directRecipientIds(row) };
}

/** Zulip's ScheduledMessage.to_reminder_dict. */
export function presentReminder(row: ScheduledMessageRow): WireReminder {
  return {
    reminder_id: row.id,
    type: "private",
    to: directRecipientIds(row),
    content: row.content,
    rendered_content: row.rendered_content,
    scheduled_delivery_timestamp: int(row.scheduled_timestamp),
    failed: bool(row.failed),
    reminder_target_message_id: row.reminder_target_message_id!,
  };
}
