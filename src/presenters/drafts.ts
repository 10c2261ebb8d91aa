import { jsonColumn } from "../db/rows.js";
import type { WireDraft } from "../wire/records.js";

export interface DraftRow {
  id: number;
  user_id: number;
  type: WireDraft["type"];
  to_ids: string;
  topic: string;
  content: string;
  last_edit_time: number;
}

/** Zulip's Draft.to_dict: the last edit time in whole seconds. */
export function presentDraft(row: DraftRow): WireDraft {
  return {
    id: row.id,
    type: row.type,
    to: jsonColumn<number[]>(row.to_ids, []),
    topic: row.topic,
    content: row.content,
    timestamp: Math.floor(Number(row.last_edit_time)),
  };
}
