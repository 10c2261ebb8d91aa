import { bool, type UserRow } from "../db/rows.js";
import { presentBot } from "../presenters/bots.js";
import { isAdminRole } from "../world/roles.js";
import type { RealmSnapshot } from "../world/realm.js";
import type { StateContext } from "./state-context.js";

/** The bots a user administers: every bot for an administrator, else the bots they own. */
export function administeredBots(realm: RealmSnapshot, user: UserRow): UserRow[] {
  const admin = isAdminRole(user.role);
  return [...realm.users]
    .filter((u) => bool(u.is_bot) && (admin || u.bot_owner_id === user.id))
    .sort((a, b) => a.id - b.id);
}

/** The `realm_bot` fetch type: realm_bots, as Zulip's get_owned_bot_dicts. */
export function fetchRealmBotsState(ctx: StateContext): Promise<Record<string, unknown>> {
  return Promise.resolve({ realm_bots: administeredBots(ctx.realm, ctx.user).map(presentBot) });
}
