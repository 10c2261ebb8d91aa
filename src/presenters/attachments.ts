import { int } from "../db/rows.js";
import type { WireAttachment } from "../wire/records.js";
import type { AttachmentRow, LinkedMessage } from "../lib/attachments.js";

/** Zulip's Attachment.to_dict: times as JavaScript timestamps (milliseconds). */
export function presentAttachment(row: AttachmentRow, messages: readonly LinkedMessage[]): WireAttachment {
  return {
    id: row.id,
    name: row.file_name,
    path_id: row.path_id,
    size: int(row.size),
    create_time: int(row.create_time) * 1000,
    messages: messages.map((m) => ({ id: m.id, date_sent: int(m.date_sent) * 1000 })),
  };
}
