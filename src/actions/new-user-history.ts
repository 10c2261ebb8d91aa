import type { ChannelRow } from "../db/channel-rows.js";
import { bulkInsert } from "../db/insert.js";
import type { UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { MESSAGE_FLAG_BITS } from "../lib/message-flags.js";
import { canSubscriberAccessChannelHistory } from "../permissions/channel-access.js";

/** Zulip's MAX_NUM_RECENT_MESSAGES: how many recent channel messages a new user gets. */
export const MAX_NUM_RECENT_MESSAGES = 1000;
/** Zulip's MAX_NUM_RECENT_UNREAD_MESSAGES: how many of the newest of them stay unread. */
export const MAX_NUM_RECENT_UNREAD_MESSAGES = 20;

/**
 * Zulip's add_new_user_history: a new person gets rows for the most recent messages of
 * the channels they just joined whose history they may read, so their feed (narrow=[])
 * is not empty. The newest few are unread, the rest read; all are `historical` (the user
 * never received them), as in Zulip. No age limit (Zulip dropped its 12-week one). No
 * events: the user has no queue yet, and register reads these rows.
 *
 * The user was created in this transaction, so no row of theirs can exist yet.
 */
export async function doAddNewUserHistory(
  tx: Tx,
  user: UserRow,
  channels: readonly ChannelRow[],
): Promise<void> {
  const channelIds = channels.filter((c) => canSubscriberAccessChannelHistory(user, c)).map((c) => c.id);
  if (channelIds.length === 0) return;
  const ids = await tx
    .knex("messages")
    .where("realm_id", user.realm_id)
    .whereIn("stream_id", channelIds)
    .orderBy("id", "desc")
    .limit(MAX_NUM_RECENT_MESSAGES)
    .pluck<number[]>("id");
  const { historical, read } = MESSAGE_FLAG_BITS;
  const rows = ids.map((id, newestFirst) => [
    user.id,
    id,
    newestFirst < MAX_NUM_RECENT_UNREAD_MESSAGES ? historical : historical | read,
  ]);
  // One statement: 3 values a row stay far below SQLite's and PostgreSQL's bound-value limits.
  await bulkInsert(
    tx.knex,
    "user_messages",
    ["user_id", "message_id", "flags"],
    rows,
    MAX_NUM_RECENT_MESSAGES,
  );
}
