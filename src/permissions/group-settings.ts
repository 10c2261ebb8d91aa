import { bool, type UserRow } from "../db/rows.js";
import type { RealmSnapshot } from "../world/realm.js";
import { isGuestRole } from "../world/roles.js";
import type { GroupPermissionSetting } from "./setting-registry.js";

/** A group-setting value on the wire: a named group's ID, or an explicit set. */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/**
 * Is the user in the group, directly or through nested subgroups? The one place
 * group membership is decided; every permission check comes through here.
 */
export function isUserInGroup(
  snapshot: RealmSnapshot,
  userId: number,
  groupId: number,
  options: { directOnly?: boolean } = {},
): boolean {
  if (options.directOnly) return snapshot.groups.get(groupId)?.members.includes(userId) ?? false;
  return snapshot.recursiveMembers(groupId).has(userId);
}

/**
 * Does the setting's group value (a group ID, named or anonymous) grant the user the
 * permission? Deactivated users never pass; guests pass only settings that may
 * include role:everyone.
 */
export function userHasPermission(
  snapshot: RealmSnapshot,
  user: UserRow,
  groupId: number | null,
  setting: Pick<GroupPermissionSetting, "allowEveryoneGroup">,
): boolean {
  if (groupId === null) return false;
  if (!user.is_active) return false;
  if (isGuestRole(user.role) && !setting.allowEveryoneGroup) return false;
  return isUserInGroup(snapshot, user.id, groupId);
}

/** How a setting's stored group is shown: a named group by ID, an anonymous one as a set. */
export function groupSettingValueForApi(snapshot: RealmSnapshot, groupId: number): GroupSettingValue {
  const node = snapshot.groups.get(groupId);
  if (!node || node.row.name !== null) return groupId;
  const activeMembers = node.members.filter((id) => bool(snapshot.user(id)?.is_active));
  return { direct_members: activeMembers, direct_subgroups: [...node.subgroups] };
}
