import { realmUserEvents } from "../presenters/events/users.js";
import type { App } from "../app.js";
import { int, type UserRow } from "../db/rows.js";
import { isUserInGroup } from "../permissions/group-settings.js";
import type { Tx } from "../db/tx.js";
import { badRequest, mustBeAdmin, mustBeOwner } from "../errors.js";
import type { RealmSnapshot } from "../world/realm.js";
import { activeUserIds } from "../lib/recipients.js";
import { ROLE, isAdminRole, type Role } from "../world/roles.js";
import {
  directSystemGroupsForRole,
  isProvisionalMember,
  type SystemGroupName,
} from "../world/system-groups.js";
import { notifyChannelAccessChanges } from "./channels.js";
import { actorIsOwner, isOnlyOwner, sendGroupMembersEvent, systemGroupOrder, type Actor } from "./users.js";

/** Who may change a user's or a bot's role: owners where the owner role is involved, else administrators. */
export function requireMayChangeRole(actor: Actor, from: number, to: Role): void {
  if ((to === ROLE.OWNER || from === ROLE.OWNER) && !actorIsOwner(actor)) throw mustBeOwner();
  if (actor !== "operator" && !isAdminRole(actor.role)) throw mustBeAdmin();
}

/** SPEC's role rules; returns whether the role actually changes. */
export function validateRoleChange(
  snapshot: RealmSnapshot,
  actor: Actor,
  target: UserRow,
  role: Role,
): boolean {
  if (target.role === role) return false;
  requireMayChangeRole(actor, target.role, role);
  if (target.role === ROLE.OWNER && isOnlyOwner(snapshot, target)) {
    throw badRequest("The owner permission cannot be removed from the only organization owner.");
  }
  if (target.role === ROLE.GUEST && isAdminRole(role)) {
    throw badRequest("Guests cannot be organization administrators");
  }
  return true;
}

/**
 * Changes a user's role: the row, its direct system-group memberships, and the events
 * (realm_user role update, then user_group remove/add for each group that changes).
 */
export async function doChangeUserRole(app: App, tx: Tx, target: UserRow, role: Role): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  await tx.knex("users").where({ id: target.id }).update({ role });
  tx.afterCommit(() => app.realms.invalidate(target.realm_id));
  tx.sendEventOnCommit(
    target.realm_id,
    realmUserEvents.update({ user_id: target.id, role }),
    activeUserIds(snapshot),
  );
  // role:fullmembers as it is, and as the waiting period decides for the new role.
  const wasFullMember = isUserInGroup(snapshot, target.id, snapshot.systemGroupId("role:fullmembers"), {
    directOnly: true,
  });
  const before = directSystemGroupsForRole(target.role, wasFullMember);
  const after = directSystemGroupsForRole(
    role,
    !isProvisionalMember(int(target.date_joined), snapshot.realm.waiting_period_threshold, tx.now),
  );
  const removed = systemGroupOrder(before.filter((g) => !after.includes(g)));
  const added = systemGroupOrder(after.filter((g) => !before.includes(g)));
  // Role groups first, then role:fullmembers, removals before additions (as Zulip).
  const steps: ReadonlyArray<readonly ["add_members" | "remove_members", SystemGroupName]> = [
    ...removed.filter((g) => g !== "role:fullmembers").map((g) => ["remove_members", g] as const),
    ...added.filter((g) => g !== "role:fullmembers").map((g) => ["add_members", g] as const),
    ...removed.filter((g) => g === "role:fullmembers").map((g) => ["remove_members", g] as const),
    ...added.filter((g) => g === "role:fullmembers").map((g) => ["add_members", g] as const),
  ];
  for (const [op, name] of steps) {
    const groupId = snapshot.systemGroupId(name);
    if (op === "remove_members") {
      await tx.knex("user_group_members").where({ group_id: groupId, user_id: target.id }).delete();
    } else {
      await tx
        .knex("user_group_members")
        .insert({ group_id: groupId, user_id: target.id })
        .onConflict()
        .ignore();
    }
    sendGroupMembersEvent(tx, snapshot, op, groupId, [target.id]);
  }
  await notifyChannelAccessChanges(app, tx, snapshot);
}
