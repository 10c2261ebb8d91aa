import type { App } from "../app.js";
import { bool, int } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { activeUserIds } from "../lib/recipients.js";
import { userGroupEvents } from "../presenters/events/user-groups.js";
import type { RealmSnapshot } from "../world/realm.js";
import { ROLE } from "../world/roles.js";
import { isProvisionalMember } from "../world/system-groups.js";
import { notifyChannelAccessChanges } from "./channels.js";

/**
 * Zulip's update_users_in_full_members_system_group: role:fullmembers holds the members
 * (role member) who joined at least the realm's waiting period ago. Brings the group in
 * line with `waitingPeriodDays` (the realm's, as this transaction wrote it), telling
 * everyone who left and who joined it, and who gains or loses sight of channels.
 */
export async function doUpdateFullMembers(
  app: App,
  tx: Tx,
  before: RealmSnapshot,
  waitingPeriodDays: number,
): Promise<void> {
  const full = before.groups.get(before.systemGroupId("role:fullmembers"))!;
  const members = before.groups.get(before.systemGroupId("role:members"))!;
  const provisional = (userId: number) => {
    const user = before.user(userId);
    return !user || isProvisionalMember(int(user.date_joined), waitingPeriodDays, tx.now);
  };
  const leaving = full.members.filter((id) => before.user(id)?.role !== ROLE.MEMBER || provisional(id));
  const joining = members.members.filter((id) => !full.members.includes(id) && !provisional(id));
  if (leaving.length === 0 && joining.length === 0) return;

  const groupId = full.row.id;
  if (leaving.length > 0) {
    await tx.knex("user_group_members").where({ group_id: groupId }).whereIn("user_id", leaving).delete();
  }
  if (joining.length > 0) {
    await tx.knex("user_group_members").insert(joining.map((user_id) => ({ group_id: groupId, user_id })));
  }
  tx.afterCommit(() => app.realms.invalidate(before.id));
  // Group member lists show active users only (presenters/user-groups.ts).
  const active = (ids: readonly number[]) => ids.filter((id) => bool(before.user(id)?.is_active));
  const recipients = activeUserIds(before);
  for (const [op, ids] of [
    ["remove_members", active(leaving)],
    ["add_members", active(joining)],
  ] as const) {
    if (ids.length > 0) tx.sendEventOnCommit(before.id, userGroupEvents.members(op, full, ids), recipients);
  }
  await notifyChannelAccessChanges(app, tx, before);
}

/**
 * Zulip's promote_new_full_members (a daily job there): members whose waiting period
 * has run out join role:fullmembers. Realms without a waiting period are skipped.
 */
export async function doPromoteNewFullMembers(app: App, tx: Tx): Promise<void> {
  const realms = await tx
    .knex("realms")
    .where("waiting_period_threshold", ">", 0)
    .andWhere({ deactivated: false })
    .select<Array<{ id: number; waiting_period_threshold: number }>>("id", "waiting_period_threshold");
  for (const realm of realms) {
    const snapshot = await app.realms.get(tx.knex, realm.id);
    await doUpdateFullMembers(app, tx, snapshot, realm.waiting_period_threshold);
  }
}
