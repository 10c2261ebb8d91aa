import { bool, type UserRow } from "../db/rows.js";
import { badRequest, insufficientPermission, notAllowedForGuests } from "../errors.js";
import type { GroupNode, RealmSnapshot } from "../world/realm.js";
import { userHasPermission } from "./group-settings.js";
import { isGuestRole } from "../world/roles.js";
import { USER_GROUP_SETTINGS, type UserGroupSettingName } from "./setting-registry.js";
import { userHasRealmPermission } from "./setting-permissions.js";

/**
 * Who may read and change user groups, as Zulip's access_user_group_* helpers decide.
 * Every group endpoint asks here; none compares roles itself. There is no role bypass:
 * administrators act through the realm's can_manage_all_groups (owners by default) or
 * through a group's own settings, and membership always counts through nested subgroups.
 */

export const invalidUserGroup = () => badRequest("Invalid user group");
export const userGroupIsDeactivated = () => badRequest("User group is deactivated.");

/**
 * Zulip's require_member_or_admin: guests and (unless the endpoint allows them, as the
 * update endpoints do from feature level 496) bots are refused.
 */
export function requireMemberOrAdmin(user: UserRow, options: { allowBots?: boolean } = {}): void {
  if (isGuestRole(user.role)) throw notAllowedForGuests();
  if (bool(user.is_bot) && !options.allowBots) {
    throw badRequest("This endpoint does not accept bot requests.");
  }
}

export const canCreateUserGroups = (snapshot: RealmSnapshot, user: UserRow) =>
  userHasRealmPermission(snapshot, user, "can_create_groups");

export const canManageAllGroups = (snapshot: RealmSnapshot, user: UserRow) =>
  userHasRealmPermission(snapshot, user, "can_manage_all_groups");

/** The group a user group's setting points at (a named or an anonymous group). */
export function userGroupSettingGroupId(
  snapshot: RealmSnapshot,
  node: GroupNode,
  setting: UserGroupSettingName,
): number {
  return node.row[`${setting}_id`] ?? snapshot.systemGroupId("role:nobody");
}

/**
 * May the user do what `setting` governs on the group? In Zulip's order: never for a
 * system group; always with can_manage_all_groups or the group's can_manage_group
 * (which carry every power); otherwise only through the setting itself.
 */
export function hasUserGroupPermission(
  snapshot: RealmSnapshot,
  user: UserRow,
  node: GroupNode,
  setting: UserGroupSettingName,
): boolean {
  if (bool(node.row.is_system_group)) return false;
  if (canManageAllGroups(snapshot, user)) return true;
  const may = (name: UserGroupSettingName) =>
    userHasPermission(
      snapshot,
      user,
      userGroupSettingGroupId(snapshot, node, name),
      USER_GROUP_SETTINGS[name],
    );
  return may("can_manage_group") || (setting !== "can_manage_group" && may(setting));
}

export const canManageUserGroup = (snapshot: RealmSnapshot, user: UserRow, node: GroupNode) =>
  hasUserGroupPermission(snapshot, user, node, "can_manage_group");

/** A named group of the realm (anonymous setting groups are not addressable). */
export function accessNamedUserGroup(
  snapshot: RealmSnapshot,
  groupId: number,
  options: { allowDeactivated?: boolean } = {},
): GroupNode {
  const node = snapshot.groups.get(groupId);
  if (!node || node.row.name === null) throw invalidUserGroup();
  if (!options.allowDeactivated && bool(node.row.deactivated)) throw userGroupIsDeactivated();
  return node;
}

/** Zulip's access_user_group_to_read_membership: any active named group. */
export const accessUserGroupToRead = (snapshot: RealmSnapshot, groupId: number) =>
  accessNamedUserGroup(snapshot, groupId);

/**
 * Zulip's access_user_group_for_update: the group, if the user holds the permission of
 * any of `settings` (tried in order, e.g. can_join_group then can_add_members_group for
 * joining oneself); else "Insufficient permission".
 */
export function accessUserGroupForUpdate(
  snapshot: RealmSnapshot,
  user: UserRow,
  groupId: number,
  settings: readonly UserGroupSettingName[],
  options: { allowDeactivated?: boolean } = {},
): GroupNode {
  const node = accessNamedUserGroup(snapshot, groupId, options);
  if (!settings.some((setting) => hasUserGroupPermission(snapshot, user, node, setting))) {
    throw insufficientPermission();
  }
  return node;
}

/**
 * The groups reachable from `groupIds` through subgroups at any depth, the given ones
 * included (Zulip's get_recursive_subgroups_for_groups). Used for cycle detection: a
 * group may not become a subgroup of anything in its own recursive subgroups.
 */
export function recursiveSubgroupIds(snapshot: RealmSnapshot, groupIds: Iterable<number>): Set<number> {
  const seen = new Set<number>();
  const stack = [...groupIds];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(snapshot.groups.get(id)?.subgroups ?? []));
  }
  return seen;
}

/** A group's subgroups: direct, or at any depth (never the group itself); sorted. */
export function userGroupSubgroupIds(
  snapshot: RealmSnapshot,
  groupId: number,
  options: { directOnly: boolean },
): number[] {
  const direct = snapshot.groups.get(groupId)?.subgroups ?? [];
  const ids = options.directOnly ? new Set(direct) : recursiveSubgroupIds(snapshot, direct);
  ids.delete(groupId);
  return [...ids].sort((a, b) => a - b);
}

/** A group's active members: direct, or through subgroups at any depth; sorted. */
export function userGroupMemberIds(
  snapshot: RealmSnapshot,
  groupId: number,
  options: { directOnly: boolean },
): number[] {
  const ids = options.directOnly
    ? (snapshot.groups.get(groupId)?.members ?? [])
    : [...snapshot.recursiveMembers(groupId)];
  return ids.filter((id) => bool(snapshot.user(id)?.is_active)).sort((a, b) => a - b);
}
