import type { Knex } from "knex";
import { bool } from "../db/rows.js";
import type { WireCustomEmoji } from "../wire/events.js";

/**
 * Custom emoji (Zulip's RealmEmoji): rows, their served URLs and the realm's emoji
 * dictionary as register and realm_emoji events carry it. The files live in the upload
 * store under avatars/<realm_id>/emoji/images/ and are served from /user_avatars/.
 */

export interface CustomEmojiRow {
  id: number;
  realm_id: number;
  name: string;
  author_id: number | null;
  file_name: string | null;
  is_animated: boolean | 0 | 1;
  deactivated: boolean | 0 | 1;
}

/** Zulip's EmojiInfo. */
export type CustomEmojiInfo = WireCustomEmoji;

/** The upload store key of an emoji file ("still/<stem>.png" for an animated one's still). */
export const emojiBlobKey = (realmId: number, fileName: string) =>
  `avatars/${realmId}/emoji/images/${fileName}`;

export const stillFileName = (fileName: string) => `still/${fileName.replace(/\.[^.]*$/, "")}.png`;

const servedUrl = (realmId: number, fileName: string) => `/user_avatars/${realmId}/emoji/images/${fileName}`;

/** Zulip's get_emoji_url (an emoji whose upload never finished has its ID as file name). */
export const emojiSourceUrl = (row: Pick<CustomEmojiRow, "realm_id" | "file_name" | "id">) =>
  servedUrl(row.realm_id, row.file_name ?? String(row.id));

export function customEmojiInfo(row: CustomEmojiRow): CustomEmojiInfo {
  return {
    id: String(row.id),
    name: row.name,
    source_url: emojiSourceUrl(row),
    deactivated: bool(row.deactivated),
    author_id: row.author_id,
    still_url:
      bool(row.is_animated) && row.file_name ? servedUrl(row.realm_id, stillFileName(row.file_name)) : null,
  };
}

/** Zulip's get_all_custom_emoji_for_realm: every emoji, deactivated ones too, by ID. */
export async function allCustomEmoji(knex: Knex, realmId: number): Promise<Record<string, CustomEmojiInfo>> {
  const rows = await knex<CustomEmojiRow>("realm_emoji")
    .where({ realm_id: realmId })
    .whereNotNull("file_name")
    .orderBy("id");
  return Object.fromEntries(rows.map((row) => [String(row.id), customEmojiInfo(row)]));
}
