import type { Knex } from "knex";
import { bool, type DbBool } from "../db/rows.js";
import { presentUserStatus, type UserStatusRow } from "../presenters/user-status.js";
import type { StateContext } from "./state-context.js";

type StatusWithPresence = UserStatusRow & { presence_enabled: DbBool };

function statusRows(knex: Knex, realmId: number) {
  return knex("user_status as s")
    .join("users as u", "u.id", "s.user_id")
    .where("u.realm_id", realmId)
    .select<StatusWithPresence[]>(
      "s.user_id",
      "s.status_text",
      "s.emoji_name",
      "s.emoji_code",
      "s.reaction_type",
      "u.presence_enabled",
    );
}

/** One user's status ({} when none is set). */
export async function userStatusOf(
  knex: Knex,
  realmId: number,
  userId: number,
): Promise<Record<string, unknown>> {
  const [row] = await statusRows(knex, realmId).where("s.user_id", userId);
  return row ? presentUserStatus(row, bool(row.presence_enabled)) : {};
}

/**
 * The `user_status` fetch type: {user_id: status} for users with something set. Unlike
 * Zulip, deactivated users' statuses stay listed, so that state and events agree
 * across deactivation and reactivation (which send no user_status events).
 */
export async function fetchUserStatusState(ctx: StateContext): Promise<Record<string, unknown>> {
  const statuses: Record<string, Record<string, unknown>> = {};
  for (const row of await statusRows(ctx.knex, ctx.realm.id).orderBy("s.user_id")) {
    const status = presentUserStatus(row, bool(row.presence_enabled));
    if (Object.keys(status).length > 0) statuses[String(row.user_id)] = status;
  }
  return { user_status: statuses };
}
