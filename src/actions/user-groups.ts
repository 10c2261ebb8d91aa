import type { App } from "../app.js";
import { insertReturningId } from "../db/insert.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import {
  badRequest,
  cannotDeactivateGroupInUse,
  insufficientPermission,
  type GroupInUseObjection,
} from "../errors.js";
import type { UserGroupEvent } from "../wire/events.js";
import { codePointLength } from "../params.js";
import type { GroupNode, RealmSnapshot } from "../world/realm.js";
import {
  validateGroupSettingChange,
  defaultGroupSetting,
  presentNormalized,
  releaseGroupSetting,
  storeGroupSetting,
  validateGroupSetting,
  type GroupSettingUpdate,
  type NormalizedGroupSetting,
} from "../permissions/group-setting-values.js";
import type { GroupSettingValue } from "../permissions/group-settings.js";
import {
  CHANNEL_GROUP_SETTING_NAMES,
  REALM_GROUP_SETTING_NAMES,
  USER_GROUP_SETTINGS,
  USER_GROUP_SETTING_NAMES,
  type UserGroupSettingName,
} from "../permissions/setting-registry.js";
import {
  accessUserGroupForUpdate,
  canCreateUserGroups,
  recursiveSubgroupIds,
  requireMemberOrAdmin,
  userGroupIsDeactivated,
  userGroupSettingGroupId,
} from "../permissions/user-groups.js";
import { presentUserGroup } from "../presenters/user-groups.js";
import { userGroupEvents } from "../presenters/events/user-groups.js";
import { notifyChannelAccessChanges } from "./channels.js";

/**
 * User groups: create, edit, membership, subgroups, deactivation. Each checkX is an API
 * entry point (validates, opens one transaction, calls doX); doX writes and queues the
 * user_group events, which go to every active user of the realm, as in Zulip.
 */

export const MAX_USER_GROUP_NAME_LENGTH = 100;
const INVALID_NAME_PREFIXES = ["@", "role:", "user:", "stream:", "channel:"] as const;

/** Zulip's check_user_group_name; the name is kept as given (not trimmed). */
export function validateUserGroupName(name: string): string {
  if (name.trim() === "") throw badRequest("User group name can't be empty!");
  if (codePointLength(name) > MAX_USER_GROUP_NAME_LENGTH) {
    throw badRequest(`User group name cannot exceed ${MAX_USER_GROUP_NAME_LENGTH} characters.`);
  }
  const prefix = INVALID_NAME_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) throw badRequest(`User group name cannot start with '${prefix}'.`);
  return name;
}

/** Names are unique in the realm, exactly (case-sensitive), deactivated groups included. */
function validateUserGroupNameAvailable(snapshot: RealmSnapshot, name: string): void {
  for (const node of snapshot.groups.values()) {
    if (node.row.name === name) throw badRequest(`User group '${name}' already exists.`);
  }
}

/** Active users of the realm by ID (Zulip's user_ids_to_users, allow_deactivated=False). */
function activeUserIds(snapshot: RealmSnapshot, userIds: readonly number[]): number[] {
  for (const id of userIds) {
    if (!bool(snapshot.user(id)?.is_active)) throw badRequest(`Invalid user ID: ${id}`);
  }
  return [...new Set(userIds)].sort((a, b) => a - b);
}

/** Named groups to add or remove as subgroups: each must exist and be active. */
function accessSubgroups(snapshot: RealmSnapshot, groupIds: readonly number[]): GroupNode[] {
  const unique = [...new Set(groupIds)];
  const missing = unique.find((id) => snapshot.groups.get(id)?.row.name == null);
  if (missing !== undefined) throw badRequest(`Invalid user group ID: ${missing}`);
  const nodes = unique.map((id) => snapshot.groups.get(id)!);
  if (nodes.some((node) => bool(node.row.deactivated))) throw userGroupIsDeactivated();
  return nodes.sort((a, b) => a.row.id - b.row.id);
}

const activeRealmUserIds = (snapshot: RealmSnapshot) =>
  [...snapshot.users].filter((u) => bool(u.is_active)).map((u) => u.id);

function sendGroupEvents(tx: Tx, snapshot: RealmSnapshot, ...events: UserGroupEvent[]): void {
  const recipients = activeRealmUserIds(snapshot);
  for (const event of events) tx.sendEventOnCommit(snapshot.realm.id, event, recipients);
}

/** Every group write changes what the realm cache holds. */
function invalidateOnCommit(app: App, tx: Tx, realmId: number): void {
  tx.afterCommit(() => app.realms.invalidate(realmId));
}

const fresh = (app: App, tx: Tx, realmId: number) => app.realms.get(tx.knex, realmId);

// ---- create ----

export interface CreateUserGroupInput {
  name: string;
  description: string;
  members: number[];
  subgroups?: number[];
  settings: Partial<Record<UserGroupSettingName, GroupSettingValue>>;
}

/** POST /user_groups/create, in Zulip's check order. Returns the new group's ID. */
export async function checkCreateUserGroup(
  app: App,
  actor: UserRow,
  input: CreateUserGroupInput,
): Promise<number> {
  requireMemberOrAdmin(actor);
  return app.db.transaction(async (tx) => {
    const snapshot = await fresh(app, tx, actor.realm_id);
    if (!canCreateUserGroups(snapshot, actor)) throw insufficientPermission();
    const members = activeUserIds(snapshot, input.members);
    const name = validateUserGroupName(input.name);
    const settings = {} as Record<UserGroupSettingName, NormalizedGroupSetting>;
    for (const setting of USER_GROUP_SETTING_NAMES) {
      const value = input.settings[setting];
      settings[setting] =
        value === undefined
          ? defaultGroupSetting(snapshot, USER_GROUP_SETTINGS[setting], actor.id)
          : validateGroupSetting(snapshot, setting, USER_GROUP_SETTINGS[setting], value);
    }
    validateUserGroupNameAvailable(snapshot, name);
    // The creator may add subgroups whatever the new group's own settings say.
    const subgroups = accessSubgroups(snapshot, input.subgroups ?? []).map((node) => node.row.id);
    return doCreateUserGroup(app, tx, {
      realmId: actor.realm_id,
      name,
      description: input.description,
      creatorId: actor.id,
      members,
      subgroups,
      settings,
    });
  });
}

export interface DoCreateUserGroupInput {
  realmId: number;
  name: string;
  description: string;
  creatorId: number | null;
  members: number[];
  subgroups: number[];
  settings: Record<UserGroupSettingName, NormalizedGroupSetting>;
}

/** Writes a validated group; sends `add` (with no subgroups, as Zulip) then `add_subgroups`. */
export async function doCreateUserGroup(app: App, tx: Tx, input: DoCreateUserGroupInput): Promise<number> {
  const settingColumns: Record<string, number> = {};
  for (const setting of USER_GROUP_SETTING_NAMES) {
    settingColumns[`${setting}_id`] = await storeGroupSetting(tx, input.realmId, input.settings[setting]);
  }
  const groupId = await insertReturningId(tx.knex, "user_groups", {
    realm_id: input.realmId,
    name: input.name,
    description: input.description,
    is_system_group: false,
    deactivated: false,
    date_created: tx.now,
    creator_id: input.creatorId,
    ...settingColumns,
  });
  if (input.members.length > 0) {
    await tx
      .knex("user_group_members")
      .insert(input.members.map((user_id) => ({ group_id: groupId, user_id })));
  }
  if (input.subgroups.length > 0) {
    await tx
      .knex("user_group_subgroups")
      .insert(input.subgroups.map((subgroup_id) => ({ supergroup_id: groupId, subgroup_id })));
  }
  invalidateOnCommit(app, tx, input.realmId);

  const snapshot = await fresh(app, tx, input.realmId);
  const node = snapshot.groups.get(groupId)!;
  const events = [userGroupEvents.add({ ...presentUserGroup(snapshot, node), direct_subgroup_ids: [] })];
  if (input.subgroups.length > 0)
    events.push(userGroupEvents.subgroups("add_subgroups", node, input.subgroups));
  sendGroupEvents(tx, snapshot, ...events);
  return groupId;
}

// ---- update (PATCH) ----

export interface UpdateUserGroupInput {
  name?: string;
  description?: string;
  deactivated?: boolean;
  settings: Partial<Record<UserGroupSettingName, GroupSettingUpdate>>;
}

/**
 * PATCH /user_groups/{id}: name, description, reactivation (deactivated=false; true does
 * nothing) and the six settings as {new, old}. Needs can_manage_group (or the realm's
 * can_manage_all_groups); a deactivated group stays editable.
 */
export async function checkUpdateUserGroup(
  app: App,
  actor: UserRow,
  groupId: number,
  input: UpdateUserGroupInput,
): Promise<void> {
  requireMemberOrAdmin(actor, { allowBots: true });
  const settingNames = USER_GROUP_SETTING_NAMES.filter((s) => input.settings[s] !== undefined);
  if (
    input.name === undefined &&
    input.description === undefined &&
    input.deactivated === undefined &&
    settingNames.length === 0
  ) {
    throw badRequest("No new data supplied");
  }
  await app.db.transaction(async (tx) => {
    const realmId = actor.realm_id;
    const snapshot = await fresh(app, tx, realmId);
    const node = accessUserGroupForUpdate(snapshot, actor, groupId, ["can_manage_group"], {
      allowDeactivated: true,
    });
    if (input.name !== undefined && input.name !== node.row.name) {
      const name = validateUserGroupName(input.name);
      validateUserGroupNameAvailable(snapshot, name);
      await doUpdateUserGroupProperty(app, tx, snapshot, node, "name", name);
    }
    if (input.description !== undefined && input.description !== node.row.description) {
      await doUpdateUserGroupProperty(app, tx, snapshot, node, "description", input.description);
    }
    if (input.deactivated === false && bool(node.row.deactivated)) {
      await doReactivateUserGroup(app, tx, realmId, groupId);
    }
    for (const setting of settingNames) {
      // Each change sees the previous ones (an anonymous value may name other groups).
      const current = await fresh(app, tx, realmId);
      const currentNode = current.groups.get(groupId)!;
      const currentGroupId = userGroupSettingGroupId(current, currentNode, setting);
      const value = validateGroupSettingChange(
        current,
        setting,
        USER_GROUP_SETTINGS[setting],
        currentGroupId,
        input.settings[setting]!,
      );
      if (value !== null) await doChangeUserGroupSetting(app, tx, current, currentNode, setting, value);
    }
  });
}

/** A new name (already checked) or description. */
export async function doUpdateUserGroupProperty(
  app: App,
  tx: Tx,
  snapshot: RealmSnapshot,
  node: GroupNode,
  property: "name" | "description",
  value: string,
): Promise<void> {
  await tx
    .knex("user_groups")
    .where({ id: node.row.id })
    .update({ [property]: value });
  invalidateOnCommit(app, tx, snapshot.realm.id);
  sendGroupEvents(tx, snapshot, userGroupEvents.update(node, { [property]: value }));
}

/** Points a setting at a validated value; drops the anonymous group it held before. */
export async function doChangeUserGroupSetting(
  app: App,
  tx: Tx,
  snapshot: RealmSnapshot,
  node: GroupNode,
  setting: UserGroupSettingName,
  value: NormalizedGroupSetting,
): Promise<void> {
  const realmId = snapshot.realm.id;
  const oldGroupId = userGroupSettingGroupId(snapshot, node, setting);
  const newGroupId = await storeGroupSetting(tx, realmId, value);
  await tx
    .knex("user_groups")
    .where({ id: node.row.id })
    .update({ [`${setting}_id`]: newGroupId });
  if (oldGroupId !== newGroupId) await releaseGroupSetting(tx, snapshot, oldGroupId);
  invalidateOnCommit(app, tx, realmId);
  sendGroupEvents(tx, snapshot, userGroupEvents.update(node, { [setting]: presentNormalized(value) }));
}

/** Reactivation: `update {deactivated: false}`, or a full `add` for clients that dropped it. */
export async function doReactivateUserGroup(
  app: App,
  tx: Tx,
  realmId: number,
  groupId: number,
): Promise<void> {
  await tx.knex("user_groups").where({ id: groupId }).update({ deactivated: false });
  invalidateOnCommit(app, tx, realmId);
  const snapshot = await fresh(app, tx, realmId);
  sendGroupEvents(
    tx,
    snapshot,
    userGroupEvents.reactivated(presentUserGroup(snapshot, snapshot.groups.get(groupId)!)),
  );
}

// ---- members and subgroups ----

export interface UpdateUserGroupMembersInput {
  add?: number[];
  delete?: number[];
  addSubgroups?: number[];
  deleteSubgroups?: number[];
}

/**
 * POST /user_groups/{id}/members (and /subgroups): add, delete, add_subgroups,
 * delete_subgroups, in that order, in one transaction; each step is checked against
 * the state the earlier ones left, and any error undoes them all.
 */
export async function checkUpdateUserGroupMembers(
  app: App,
  actor: UserRow,
  groupId: number,
  input: UpdateUserGroupMembersInput,
  nothingToDo: string,
): Promise<void> {
  requireMemberOrAdmin(actor, { allowBots: true });
  const add = input.add ?? [];
  const remove = input.delete ?? [];
  const addSubgroups = input.addSubgroups ?? [];
  const removeSubgroups = input.deleteSubgroups ?? [];
  if (add.length + remove.length + addSubgroups.length + removeSubgroups.length === 0) {
    throw badRequest(nothingToDo);
  }
  const realmId = actor.realm_id;
  const isSelf = (ids: number[]) => ids.length === 1 && ids[0] === actor.id;
  await app.db.transaction(async (tx) => {
    const before = await fresh(app, tx, realmId);
    await applyMembershipChanges(tx);
    await notifyChannelAccessChanges(app, tx, before);
  });

  async function applyMembershipChanges(tx: Tx): Promise<void> {
    if (add.length > 0) {
      const snapshot = await fresh(app, tx, realmId);
      // Joining oneself needs can_join_group, or else the power to add anyone.
      const node = accessUserGroupForUpdate(
        snapshot,
        actor,
        groupId,
        isSelf(add) ? ["can_join_group", "can_add_members_group"] : ["can_add_members_group"],
        { allowDeactivated: true },
      );
      const userIds = activeUserIds(snapshot, add);
      const existing = userIds.find((id) => node.members.includes(id));
      if (existing !== undefined) throw badRequest(`User ${existing} is already a member of this group`);
      await doAddUserGroupMembers(app, tx, snapshot, node, userIds);
    }
    if (remove.length > 0) {
      const snapshot = await fresh(app, tx, realmId);
      const userIds = activeUserIds(snapshot, remove);
      // Leaving needs can_leave_group, or else the power to remove anyone.
      const node = accessUserGroupForUpdate(
        snapshot,
        actor,
        groupId,
        isSelf(remove) ? ["can_leave_group", "can_remove_members_group"] : ["can_remove_members_group"],
        { allowDeactivated: true },
      );
      const missing = userIds.find((id) => !node.members.includes(id));
      if (missing !== undefined) throw badRequest(`There is no member '${missing}' in this user group`);
      await doRemoveUserGroupMembers(app, tx, snapshot, node, userIds);
    }
    if (addSubgroups.length > 0) {
      const snapshot = await fresh(app, tx, realmId);
      const node = accessUserGroupForUpdate(snapshot, actor, groupId, ["can_add_members_group"], {
        allowDeactivated: true,
      });
      const subgroups = accessSubgroups(snapshot, addSubgroups);
      const existing = subgroups.find((g) => node.subgroups.includes(g.row.id));
      if (existing) throw badRequest(`User group ${existing.row.id} is already a subgroup of this group.`);
      // No cycles: the group may not already be (or be under) one of the new subgroups.
      if (
        recursiveSubgroupIds(
          snapshot,
          subgroups.map((g) => g.row.id),
        ).has(groupId)
      ) {
        throw badRequest(`User group ${groupId} is already a subgroup of one of the passed subgroups.`);
      }
      await doAddUserGroupSubgroups(
        app,
        tx,
        snapshot,
        node,
        subgroups.map((g) => g.row.id),
      );
    }
    if (removeSubgroups.length > 0) {
      const snapshot = await fresh(app, tx, realmId);
      const node = accessUserGroupForUpdate(snapshot, actor, groupId, ["can_manage_group"], {
        allowDeactivated: true,
      });
      const subgroups = accessSubgroups(snapshot, removeSubgroups);
      const missing = subgroups.find((g) => !node.subgroups.includes(g.row.id));
      if (missing) throw badRequest(`User group ${missing.row.id} is not a subgroup of this group.`);
      await doRemoveUserGroupSubgroups(
        app,
        tx,
        snapshot,
        node,
        subgroups.map((g) => g.row.id),
      );
    }
  }
}

export async function doAddUserGroupMembers(
  app: App,
  tx: Tx,
  snapshot: RealmSnapshot,
  node: GroupNode,
  userIds: number[],
): Promise<void> {
  await tx.knex("user_group_members").insert(userIds.map((user_id) => ({ group_id: node.row.id, user_id })));
  invalidateOnCommit(app, tx, snapshot.realm.id);
  sendGroupEvents(tx, snapshot, userGroupEvents.members("add_members", node, userIds));
}

export async function doRemoveUserGroupMembers(
  app: App,
  tx: Tx,
  snapshot: RealmSnapshot,
  node: GroupNode,
  userIds: number[],
): Promise<void> {
  await tx.knex("user_group_members").where({ group_id: node.row.id }).whereIn("user_id", userIds).delete();
  invalidateOnCommit(app, tx, snapshot.realm.id);
  sendGroupEvents(tx, snapshot, userGroupEvents.members("remove_members", node, userIds));
}

export async function doAddUserGroupSubgroups(
  app: App,
  tx: Tx,
  snapshot: RealmSnapshot,
  node: GroupNode,
  subgroupIds: number[],
): Promise<void> {
  await tx
    .knex("user_group_subgroups")
    .insert(subgroupIds.map((subgroup_id) => ({ supergroup_id: node.row.id, subgroup_id })));
  invalidateOnCommit(app, tx, snapshot.realm.id);
  sendGroupEvents(tx, snapshot, userGroupEvents.subgroups("add_subgroups", node, subgroupIds));
}

export async function doRemoveUserGroupSubgroups(
  app: App,
  tx: Tx,
  snapshot: RealmSnapshot,
  node: GroupNode,
  subgroupIds: number[],
): Promise<void> {
  await tx
    .knex("user_group_subgroups")
    .where({ supergroup_id: node.row.id })
    .whereIn("subgroup_id", subgroupIds)
    .delete();
  invalidateOnCommit(app, tx, snapshot.realm.id);
  sendGroupEvents(tx, snapshot, userGroupEvents.subgroups("remove_subgroups", node, subgroupIds));
}

// ---- deactivation ----

/**
 * Everything that still uses the group, in Zulip's order: active named supergroups;
 * then, for the group itself or an anonymous group containing it, the settings of
 * unarchived channels, of active named groups, and of the realm. One query (channels);
 * groups and the realm come from the snapshot.
 */
export async function userGroupUseObjections(
  tx: Tx,
  snapshot: RealmSnapshot,
  groupId: number,
): Promise<GroupInUseObjection[]> {
  const objections: GroupInUseObjection[] = [];
  const usedAs = new Set([groupId]);
  const supergroupIds: number[] = [];
  for (const node of snapshot.groups.values()) {
    if (!node.subgroups.includes(groupId)) continue;
    if (node.row.name === null) usedAs.add(node.row.id);
    else if (!bool(node.row.deactivated)) supergroupIds.push(node.row.id);
  }
  if (supergroupIds.length > 0) {
    objections.push({ type: "subgroup", supergroup_ids: supergroupIds.sort((a, b) => a - b) });
  }

  const ids = [...usedAs];
  const channelColumns = CHANNEL_GROUP_SETTING_NAMES.map((s) => `${s}_id`);
  const channels = await tx
    .knex("streams")
    .where({ realm_id: snapshot.realm.id, is_archived: false })
    .where((q) => {
      for (const column of channelColumns) void q.orWhereIn(column, ids);
    })
    .orderBy("id")
    .select<Array<Record<string, number | null>>>("id", ...channelColumns);
  for (const channel of channels) {
    const settings = CHANNEL_GROUP_SETTING_NAMES.filter((s) => usedAs.has(channel[`${s}_id`] ?? -1));
    objections.push({ type: "channel", channel_id: channel.id!, settings });
  }

  const groups = [...snapshot.groups.values()]
    .filter((node) => node.row.name !== null && !bool(node.row.deactivated))
    .sort((a, b) => a.row.id - b.row.id);
  for (const node of groups) {
    const settings = USER_GROUP_SETTING_NAMES.filter((s) => usedAs.has(node.row[`${s}_id`] ?? -1));
    if (settings.length > 0) objections.push({ type: "user_group", group_id: node.row.id, settings });
  }

  const realmSettings = REALM_GROUP_SETTING_NAMES.filter((s) =>
    usedAs.has((snapshot.realm[`${s}_id`] as number | null) ?? -1),
  );
  if (realmSettings.length > 0) objections.push({ type: "realm", settings: realmSettings });
  return objections;
}

/** POST /user_groups/{id}/deactivate: for managers of an active group nothing uses. */
export async function checkDeactivateUserGroup(app: App, actor: UserRow, groupId: number): Promise<void> {
  await app.db.transaction(async (tx) => {
    const snapshot = await fresh(app, tx, actor.realm_id);
    accessUserGroupForUpdate(snapshot, actor, groupId, ["can_manage_group"]);
    const objections = await userGroupUseObjections(tx, snapshot, groupId);
    if (objections.length > 0) throw cannotDeactivateGroupInUse(objections);
    await doDeactivateUserGroup(app, tx, snapshot, groupId);
  });
}

/** Deactivation: `update {deactivated: true}`, sent as `remove` to clients without the capability. */
export async function doDeactivateUserGroup(
  app: App,
  tx: Tx,
  snapshot: RealmSnapshot,
  groupId: number,
): Promise<void> {
  await tx.knex("user_groups").where({ id: groupId }).update({ deactivated: true });
  invalidateOnCommit(app, tx, snapshot.realm.id);
  sendGroupEvents(tx, snapshot, userGroupEvents.deactivated(groupId));
}
