import { int, type DbBigInt } from "../db/rows.js";
import type { WireSavedSnippet } from "../wire/records.js";

export interface SavedSnippetRow {
  id: number;
  realm_id: number;
  user_id: number;
  title: string;
  content: string;
  date_created: DbBigInt;
}

export function presentSavedSnippet(row: SavedSnippetRow): WireSavedSnippet {
  return { id: row.id, title: row.title, content: row.content, date_created: int(row.date_created) };
}
