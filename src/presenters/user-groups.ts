import { bool, intOrNull } from "../db/rows.js";
import type { GroupNode, RealmSnapshot } from "../world/realm.js";
import { groupSettingValueForApi, type GroupSettingValue } from "../permissions/group-settings.js";
import { USER_GROUP_SETTING_NAMES, type UserGroupSettingName } from "../permissions/setting-registry.js";
import { userGroupMemberIds, userGroupSettingGroupId } from "../permissions/user-groups.js";

/** A user group as GET /user_groups, /register and user_group add events show it. */
export type ApiUserGroup = {
  id: number;
  name: string;
  creator_id: number | null;
  date_created: number | null;
  description: string;
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
} & Record<UserGroupSettingName, GroupSettingValue> & { deactivated: boolean };

/**
 * The group record, fields in Zulip's order (user_groups_in_realm_serialized): direct
 * members (active users only) and direct subgroups, sorted; each setting as a group ID,
 * or as {direct_members, direct_subgroups} when it holds an anonymous group.
 */
export function presentUserGroup(snapshot: RealmSnapshot, node: GroupNode): ApiUserGroup {
  const row = node.row;
  const settings = Object.fromEntries(
    USER_GROUP_SETTING_NAMES.map((setting) => [
      setting,
      groupSettingValueForApi(snapshot, userGroupSettingGroupId(snapshot, node, setting)),
    ]),
  ) as Record<UserGroupSettingName, GroupSettingValue>;
  return {
    id: row.id,
    name: row.name ?? "",
    creator_id: row.creator_id,
    date_created: intOrNull(row.date_created),
    description: row.description,
    members: userGroupMemberIds(snapshot, row.id, { directOnly: true }),
    direct_subgroup_ids: [...node.subgroups].sort((a, b) => a - b),
    is_system_group: bool(row.is_system_group),
    ...settings,
    deactivated: bool(row.deactivated),
  };
}

/** Every named group of the realm by ID (never anonymous setting groups). */
export function presentUserGroups(
  snapshot: RealmSnapshot,
  options: { includeDeactivated: boolean },
): ApiUserGroup[] {
  const groups: ApiUserGroup[] = [];
  for (const node of snapshot.groups.values()) {
    if (node.row.name === null) continue;
    if (bool(node.row.deactivated) && !options.includeDeactivated) continue;
    groups.push(presentUserGroup(snapshot, node));
  }
  return groups.sort((a, b) => a.id - b.id);
}
