/** A submessages row: data a widget attached to a message after it was sent. */
export interface SubmessageRow {
  id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

/** An entry of a message's `submessages` (Zulip's SubMessage.get_raw_db_rows). */
export const presentSubmessage = (row: SubmessageRow) => ({
  id: row.id,
  message_id: row.message_id,
  sender_id: row.sender_id,
  msg_type: row.msg_type,
  content: row.content,
});
