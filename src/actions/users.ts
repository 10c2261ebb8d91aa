import { userGroupEvents } from "../presenters/events/user-groups.js";
import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import type { RealmSnapshot } from "../world/realm.js";
import { activeUserIds } from "../lib/recipients.js";
import { isOwnerRole } from "../world/roles.js";
import type { SystemGroupName } from "../world/system-groups.js";

/**
 * What the actions on users share: who acts, the realm's owners, the transaction of a
 * change, and the group membership events. Each change has its file:
 * user-create, user-update (name and PATCH /users/{id}), user-role, user-email,
 * user-activation, user-password.
 */

/** Who asks for a change: a user over the API, or the server operator through the CLI. */
export type Actor = UserRow | "operator";

export const actorIsOwner = (actor: Actor) => actor === "operator" || isOwnerRole(actor.role);

/** The realm's active human owners. */
function activeHumanOwners(snapshot: RealmSnapshot): UserRow[] {
  return [...snapshot.users].filter((u) => bool(u.is_active) && !bool(u.is_bot) && isOwnerRole(u.role));
}

export const isOnlyOwner = (snapshot: RealmSnapshot, target: UserRow) => {
  const owners = activeHumanOwners(snapshot);
  return owners.length === 1 && owners[0]!.id === target.id;
};

/**
 * The write transaction of a change to a user or a bot, with the realm as the
 * transaction sees it (where the change finds its target, e.g. with accessUserById).
 */
export function realmTransaction<T>(
  app: App,
  realmId: number,
  change: (tx: Tx, snapshot: RealmSnapshot) => Promise<T>,
): Promise<T> {
  return app.db.transaction(async (tx) => change(tx, await app.realms.get(tx.knex, realmId)));
}

/** The user_group add_members / remove_members event Zulip sends to the whole realm. */
export function sendGroupMembersEvent(
  tx: Tx,
  snapshot: RealmSnapshot,
  op: "add_members" | "remove_members",
  groupId: number,
  userIds: number[],
): void {
  const node = snapshot.groups.get(groupId);
  if (!node) return;
  tx.sendEventOnCommit(
    snapshot.realm.id,
    userGroupEvents.members(op, node, userIds),
    activeUserIds(snapshot),
  );
}

/** Role groups before role:fullmembers, as Zulip sends their events. */
export const systemGroupOrder = (names: SystemGroupName[]) =>
  [...names].sort((a, b) => Number(a === "role:fullmembers") - Number(b === "role:fullmembers"));
