import { bool } from "../../db/rows.js";
import {
  hasCapability,
  type Flavour,
  type UserGroupEvent,
  type UserGroupRouting,
  type UserGroupWireEvent,
} from "../../wire/events.js";
import type { GroupNode } from "../../world/realm.js";
import type { ApiUserGroup } from "../user-groups.js";

/**
 * user_group events. Those about a deactivated group, and (re)activations, carry
 * routing data (UserGroupRouting) that userGroupFlavour reads and strips before any
 * client sees it.
 */

const routed = (event: UserGroupWireEvent, routing: UserGroupRouting): UserGroupEvent =>
  routing.groupDeactivated || routing.legacy ? { ...event, chatd_user_group_routing: routing } : event;

export const userGroupEvents = {
  add(group: ApiUserGroup): UserGroupEvent {
    return { type: "user_group", op: "add", group };
  },
  /** One changed property (name, description, a setting): {group_id, data}. */
  update(node: GroupNode, data: Record<string, unknown>): UserGroupEvent {
    return routed(
      { type: "user_group", op: "update", group_id: node.row.id, data },
      { groupDeactivated: bool(node.row.deactivated) },
    );
  },
  members(op: "add_members" | "remove_members", node: GroupNode, userIds: number[]): UserGroupEvent {
    return routed(
      { type: "user_group", op, group_id: node.row.id, user_ids: userIds },
      { groupDeactivated: bool(node.row.deactivated) },
    );
  },
  subgroups(
    op: "add_subgroups" | "remove_subgroups",
    node: GroupNode,
    subgroupIds: number[],
  ): UserGroupEvent {
    return routed(
      { type: "user_group", op, group_id: node.row.id, direct_subgroup_ids: subgroupIds },
      { groupDeactivated: bool(node.row.deactivated) },
    );
  },
  deactivated(groupId: number): UserGroupEvent {
    return routed(
      { type: "user_group", op: "update", group_id: groupId, data: { deactivated: true } },
      { legacy: { type: "user_group", op: "remove", group_id: groupId } },
    );
  },
  /** `group` is the reactivated group's record, for clients that forgot it on deactivation. */
  reactivated(group: ApiUserGroup): UserGroupEvent {
    return routed(
      { type: "user_group", op: "update", group_id: group.id, data: { deactivated: false } },
      { legacy: { type: "user_group", op: "add", group } },
    );
  },
};

/** Shapes a user_group event for one client by its include_deactivated_groups capability. */
export const userGroupFlavour: Flavour<"user_group"> = (event, { options }) => {
  const { chatd_user_group_routing: routing, ...wire } = event;
  if (!routing) return event;
  if (hasCapability(options, "include_deactivated_groups")) return wire;
  if (routing.legacy) return routing.legacy;
  return routing.groupDeactivated ? null : wire;
};
