import type { Knex } from "knex";
import { int, type DbBigInt } from "../db/rows.js";

/** The users a user muted, in the order muted (Zulip's get_user_mutes). */
export async function mutedUsersOf(
  knex: Knex,
  userId: number,
): Promise<Array<{ id: number; timestamp: number }>> {
  const rows = await knex("muted_users")
    .where("user_id", userId)
    .orderBy("rowid")
    .select<Array<{ muted_user_id: number; date_muted: DbBigInt }>>("muted_user_id", "date_muted");
  return rows.map((row) => ({ id: row.muted_user_id, timestamp: int(row.date_muted) }));
}

/** Who muted whom in a realm: muted user ID to the IDs of those who muted them. */
export async function loadRealmMutes(knex: Knex, realmId: number): Promise<Map<number, Set<number>>> {
  const rows = await knex("muted_users as mu")
    .join("users as u", "u.id", "mu.user_id")
    .where("u.realm_id", realmId)
    .select<Array<{ user_id: number; muted_user_id: number }>>("mu.user_id", "mu.muted_user_id");
  const muters = new Map<number, Set<number>>();
  for (const row of rows) {
    const set = muters.get(row.muted_user_id);
    if (set) set.add(row.user_id);
    else muters.set(row.muted_user_id, new Set([row.user_id]));
  }
  return muters;
}
