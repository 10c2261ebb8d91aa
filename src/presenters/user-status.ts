import type { Knex } from "knex";
import { bool, type DbBool } from "../db/rows.js";
import type { StateContext } from "../events/state.js";

export interface UserStatusRow {
  user_id: number;
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

/**
 * A user's status as Zulip's format_user_status shows it: only what is set, and `away`
 * (the deprecated alias of presence_enabled = false) only when true.
 */
export function presentUserStatus(row: UserStatusRow, presenceEnabled: boolean): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  if (!presenceEnabled) status.away = true;
  if (row.status_text) status.status_text = row.status_text;
  if (row.emoji_name) {
    status.emoji_name = row.emoji_name;
    status.emoji_code = row.emoji_code;
    status.reaction_type = row.reaction_type;
  }
  return status;
}

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
  for (const row of await statusRows(ctx.knex, ctx.realm.realm.id).orderBy("s.user_id")) {
    const status = presentUserStatus(row, bool(row.presence_enabled));
    if (Object.keys(status).length > 0) statuses[String(row.user_id)] = status;
  }
  return { user_status: statuses };
}
