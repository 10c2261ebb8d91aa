import type { Knex } from "knex";
import { bool, type UserRow } from "../db/rows.js";
import { MESSAGE_FLAG_BITS } from "../lib/message-flags.js";
import type { RealmSnapshot } from "../world/realm.js";

/**
 * Does the user share read receipts (Zulip's send_read_receipts privacy setting,
 * default true)? The one place that reads it.
 */
export const sendsReadReceipts = (user: UserRow): boolean => bool(user.send_read_receipts);

/**
 * GET /messages/{id}/read_receipts (Zulip's read_receipts): the active users who marked
 * the message read and share read receipts, never its sender, nor anyone the viewer
 * muted or who muted the viewer; ascending. Bots count; historical copies count.
 */
export async function readReceiptUserIds(
  knex: Knex,
  realm: RealmSnapshot,
  viewer: UserRow,
  message: { id: number; sender_id: number },
): Promise<number[]> {
  const readers = (await knex("user_messages")
    .where("message_id", message.id)
    .whereRaw(`(flags & ${MESSAGE_FLAG_BITS.read}) <> 0`)
    .pluck("user_id")) as number[];
  const mutes = await knex("muted_users")
    .where("user_id", viewer.id)
    .orWhere("muted_user_id", viewer.id)
    .select<Array<{ user_id: number; muted_user_id: number }>>("user_id", "muted_user_id");
  const muting = new Set(mutes.flatMap((m) => [m.user_id, m.muted_user_id]).filter((id) => id !== viewer.id));
  return readers
    .filter((id) => {
      const user = realm.user(id);
      return (
        user !== undefined &&
        id !== message.sender_id &&
        !muting.has(id) &&
        bool(user.is_active) &&
        sendsReadReceipts(user)
      );
    })
    .sort((a, b) => a - b);
}
