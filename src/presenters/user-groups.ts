import { bool, intOrNull } from "../db/rows.js";
import type { Flavour } from "../events/types.js";
import { hasCapability, type ChatEvent } from "../events/types.js";
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

// ---- events ----

/**
 * Internal routing data on a user_group event, stripped by userGroupFlavour before any
 * client sees it. Clients without the include_deactivated_groups capability do not know
 * deactivated groups: they get `legacy` instead (remove on deactivation, a full add on
 * reactivation), and nothing at all about a group while it is deactivated.
 */
const ROUTING = "chatd_user_group_routing";

interface UserGroupRouting {
  /** The event concerns a deactivated group. */
  groupDeactivated?: boolean;
  /** What clients without include_deactivated_groups get instead. */
  legacy?: ChatEvent;
}

type UserGroupEvent = ChatEvent & { [ROUTING]?: UserGroupRouting };

const routed = (event: ChatEvent, routing: UserGroupRouting): UserGroupEvent =>
  routing.groupDeactivated || routing.legacy ? { ...event, [ROUTING]: routing } : event;

export const userGroupEvents = {
  add(group: ApiUserGroup): ChatEvent {
    return { type: "user_group", op: "add", group };
  },
  /** One changed property (name, description, a setting): {group_id, data}. */
  update(node: GroupNode, data: Record<string, unknown>): ChatEvent {
    return routed(
      { type: "user_group", op: "update", group_id: node.row.id, data },
      { groupDeactivated: bool(node.row.deactivated) },
    );
  },
  members(op: "add_members" | "remove_members", node: GroupNode, userIds: number[]): ChatEvent {
    return routed(
      { type: "user_group", op, group_id: node.row.id, user_ids: userIds },
      { groupDeactivated: bool(node.row.deactivated) },
    );
  },
  subgroups(op: "add_subgroups" | "remove_subgroups", node: GroupNode, subgroupIds: number[]): ChatEvent {
    return routed(
      { type: "user_group", op, group_id: node.row.id, direct_subgroup_ids: subgroupIds },
      { groupDeactivated: bool(node.row.deactivated) },
    );
  },
  deactivated(groupId: number): ChatEvent {
    return routed(
      { type: "user_group", op: "update", group_id: groupId, data: { deactivated: true } },
      { legacy: { type: "user_group", op: "remove", group_id: groupId } },
    );
  },
  /** `group` is the reactivated group's record, for clients that forgot it on deactivation. */
  reactivated(group: ApiUserGroup): ChatEvent {
    return routed(
      { type: "user_group", op: "update", group_id: group.id, data: { deactivated: false } },
      { legacy: userGroupEvents.add(group) },
    );
  },
};

/** Shapes a user_group event for one client by its include_deactivated_groups capability. */
export const userGroupFlavour: Flavour = (event, { options }) => {
  const { [ROUTING]: routing, ...wire } = event as UserGroupEvent;
  if (!routing) return event;
  if (hasCapability(options, "include_deactivated_groups")) return wire;
  if (routing.legacy) return routing.legacy;
  return routing.groupDeactivated ? null : wire;
};
