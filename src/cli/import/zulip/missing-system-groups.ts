import type { Knex } from "knex";
import { doCreateSystemGroups } from "../../../actions/realm.js";
import { bulkInsertIntegers } from "../../../db/insert.js";
import { isPostgres } from "../../../db/dialect.js";
import { directSystemGroupsForRole, isProvisionalMember } from "../../../world/system-groups.js";
import { resetSequences } from "../../db-copy/copy.js";

/**
 * Zulip's importer for exports without system groups (Slack and other converters): the
 * realm's system groups as `chatd init` makes them, each user a direct member of their
 * role's group (members past the waiting period also of role:fullmembers). The realm's
 * and channels' NULL group settings then take their defaults (fillGroupSettings).
 */
export async function createMissingSystemGroups(
  trx: Knex.Transaction,
  realmId: number,
  userIds: readonly number[],
  now: number,
): Promise<void> {
  const existing = await trx("user_groups")
    .where({ realm_id: realmId, is_system_group: true })
    .first<{ id: number } | undefined>("id");
  if (existing) return;
  // The export's own groups kept their ids: new ones start after them.
  if (isPostgres(trx)) await resetSequences(trx);
  const groupIds = await doCreateSystemGroups({ knex: trx, now }, realmId);
  const realm = await trx("realms")
    .where({ id: realmId })
    .first<{ waiting_period_threshold: number }>("waiting_period_threshold");
  const wanted = new Set(userIds);
  const users = await trx("users")
    .where({ realm_id: realmId })
    .select<Array<{ id: number; role: number; date_joined: number }>>("id", "role", "date_joined");
  const memberships: number[][] = [];
  for (const user of users) {
    if (!wanted.has(user.id)) continue;
    const full = !isProvisionalMember(Number(user.date_joined), Number(realm.waiting_period_threshold), now);
    for (const name of directSystemGroupsForRole(user.role, full))
      memberships.push([groupIds.get(name)!, user.id]);
  }
  await bulkInsertIntegers(trx, "user_group_members", ["group_id", "user_id"], memberships);
}
