import { bool } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { insertReturningId } from "../db/insert.js";
import { JsonableError, badRequest } from "../errors.js";
import { validate, type Validator } from "../params.js";
import type { RealmSnapshot } from "../world/realm.js";
import type { GroupSettingValue } from "./group-settings.js";
import type { GroupPermissionSetting } from "./setting-registry.js";

/**
 * Group-setting values on the way in: parsing, normalising, validating against the
 * setting's rules, comparing with `old`, and storing (a named group by ID; an explicit
 * set as an anonymous group, as Zulip does).
 */

/** A validated value: a named group, or an explicit set of users and groups. */
export type NormalizedGroupSetting =
  { kind: "named"; groupId: number } | { kind: "anonymous"; members: number[]; subgroups: number[] };

const formatError = (name: string) => badRequest(`${name} does not have the expected format`);

const explicitSet = validate.dict({
  direct_members: { required: true, validate: validate.list(validate.int()) },
  direct_subgroups: { required: true, validate: validate.list(validate.int()) },
});

/** A plain value (create endpoints): a group ID or {direct_members, direct_subgroups}. */
export const validateGroupSettingFormat: Validator<GroupSettingValue> = (value, name) => {
  if (typeof value === "number") return validate.int()(value, name);
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return explicitSet(value, name);
  throw formatError(name);
};

export interface GroupSettingUpdate {
  new: GroupSettingValue;
  old?: GroupSettingValue;
}

/** An update (PATCH endpoints): only the object form {new, old?} is accepted. */
export const validateGroupSettingUpdateFormat: Validator<GroupSettingUpdate> = (value, name) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw formatError(name);
  const input = value as Record<string, unknown>;
  if (!("new" in input)) throw formatError(name);
  for (const key of Object.keys(input)) if (key !== "new" && key !== "old") throw formatError(name);
  const update: GroupSettingUpdate = { new: validateGroupSettingFormat(input.new, `${name}["new"]`) };
  if (input.old !== undefined) update.old = validateGroupSettingFormat(input.old, `${name}["old"]`);
  return update;
};

const sortedUnique = (ids: readonly number[]) => [...new Set(ids)].sort((a, b) => a - b);

/** Zulip's parse_group_setting_value: {[], [G]} is G; {[], []} is role:nobody. */
export function normalizeGroupSetting(
  snapshot: RealmSnapshot,
  value: GroupSettingValue,
): NormalizedGroupSetting {
  if (typeof value === "number") return { kind: "named", groupId: value };
  const members = sortedUnique(value.direct_members);
  const subgroups = sortedUnique(value.direct_subgroups);
  if (members.length === 0 && subgroups.length === 1) return { kind: "named", groupId: subgroups[0]! };
  if (members.length === 0 && subgroups.length === 0) {
    return { kind: "named", groupId: snapshot.systemGroupId("role:nobody") };
  }
  return { kind: "anonymous", members, subgroups };
}

function namedGroup(snapshot: RealmSnapshot, groupId: number) {
  const node = snapshot.groups.get(groupId);
  if (!node || node.row.name === null) throw badRequest("Invalid user group");
  if (bool(node.row.deactivated)) throw badRequest("User group is deactivated.");
  return node;
}

/**
 * Validates a value for one setting. Unknown or deactivated groups and users are
 * refused, and so are the system groups the setting does not allow.
 */
export function validateGroupSetting(
  snapshot: RealmSnapshot,
  settingName: string,
  setting: GroupPermissionSetting,
  value: GroupSettingValue,
): NormalizedGroupSetting {
  const normalized = normalizeGroupSetting(snapshot, value);
  if (normalized.kind === "anonymous") {
    if (setting.requireSystemGroup) throw badRequest(`'${settingName}' must be a system user group.`);
    for (const userId of normalized.members) {
      const user = snapshot.user(userId);
      if (!user || !bool(user.is_active)) throw badRequest(`Invalid user ID: ${userId}`);
    }
    for (const groupId of normalized.subgroups) {
      const node = snapshot.groups.get(groupId);
      if (!node || node.row.name === null) throw badRequest(`Invalid user group ID: ${groupId}`);
      if (bool(node.row.deactivated)) throw badRequest("User group is deactivated.");
    }
    return normalized;
  }
  const node = namedGroup(snapshot, normalized.groupId);
  const isSystem = bool(node.row.is_system_group);
  if (setting.requireSystemGroup && !isSystem)
    throw badRequest(`'${settingName}' must be a system user group.`);
  if (isSystem) {
    const name = node.row.name!;
    const refuse = () => badRequest(`'${settingName}' setting cannot be set to '${name}' group.`);
    if (name === "role:internet" && !setting.allowInternetGroup) throw refuse();
    if (name === "role:nobody" && !setting.allowNobodyGroup) throw refuse();
    if (name === "role:everyone" && !setting.allowEveryoneGroup) throw refuse();
    if (setting.allowedSystemGroups && !(setting.allowedSystemGroups as readonly string[]).includes(name))
      throw refuse();
    if ((setting.forbiddenSystemGroups as readonly string[] | undefined)?.includes(name)) throw refuse();
  }
  return normalized;
}

/** Does the stored group equal a client's value (for `old` checks and no-op updates)? */
export function groupSettingEquals(
  snapshot: RealmSnapshot,
  storedGroupId: number,
  value: GroupSettingValue,
): boolean {
  const expected = normalizeGroupSetting(snapshot, value);
  const node = snapshot.groups.get(storedGroupId);
  const storedIsNamed = !node || node.row.name !== null;
  if (expected.kind === "named") return storedIsNamed && storedGroupId === expected.groupId;
  if (storedIsNamed) return false;
  const members = node.members.filter((id) => bool(snapshot.user(id)?.is_active));
  return (
    JSON.stringify(sortedUnique(members)) === JSON.stringify(expected.members) &&
    JSON.stringify(sortedUnique(node.subgroups)) === JSON.stringify(expected.subgroups)
  );
}

export const expectationMismatch = () =>
  new JsonableError("'old' value does not match the expected value.", "EXPECTATION_MISMATCH", 400);

/**
 * Checks an update against the current value. Returns the validated new value, or null
 * when it equals the current one (nothing to change, no event).
 */
export function validateGroupSettingChange(
  snapshot: RealmSnapshot,
  settingName: string,
  setting: GroupPermissionSetting,
  currentGroupId: number,
  update: GroupSettingUpdate,
): NormalizedGroupSetting | null {
  if (update.old !== undefined && !groupSettingEquals(snapshot, currentGroupId, update.old)) {
    throw expectationMismatch();
  }
  const validated = validateGroupSetting(snapshot, settingName, setting, update.new);
  return groupSettingEquals(snapshot, currentGroupId, update.new) ? null : validated;
}

/** The value a setting gets when a request leaves it out. */
export function defaultGroupSetting(
  snapshot: RealmSnapshot,
  setting: GroupPermissionSetting,
  creatorId: number | null,
): NormalizedGroupSetting {
  if (setting.defaultGroupName !== "creator") {
    return { kind: "named", groupId: snapshot.systemGroupId(setting.defaultGroupName) };
  }
  return creatorId === null
    ? { kind: "named", groupId: snapshot.systemGroupId("role:nobody") }
    : { kind: "anonymous", members: [creatorId], subgroups: [] };
}

/** Stores a value and returns the group ID the setting column should hold. */
export async function storeGroupSetting(
  tx: Tx,
  realmId: number,
  value: NormalizedGroupSetting,
): Promise<number> {
  if (value.kind === "named") return value.groupId;
  const groupId = await insertReturningId(tx.knex, "user_groups", {
    realm_id: realmId,
    name: null,
    description: "",
    is_system_group: false,
    date_created: tx.now,
  });
  if (value.members.length > 0) {
    await tx
      .knex("user_group_members")
      .insert(value.members.map((user_id) => ({ group_id: groupId, user_id })));
  }
  if (value.subgroups.length > 0) {
    await tx
      .knex("user_group_subgroups")
      .insert(value.subgroups.map((subgroup_id) => ({ supergroup_id: groupId, subgroup_id })));
  }
  return groupId;
}

/** Drops a setting's previous group if it was anonymous (nothing else refers to it). */
export async function releaseGroupSetting(
  tx: Tx,
  snapshot: RealmSnapshot,
  oldGroupId: number,
): Promise<void> {
  const node = snapshot.groups.get(oldGroupId);
  if (node && node.row.name === null) await tx.knex("user_groups").where({ id: oldGroupId }).delete();
}

/** The API form of a normalised value (for events after a change). */
export function presentNormalized(value: NormalizedGroupSetting): GroupSettingValue {
  return value.kind === "named"
    ? value.groupId
    : { direct_members: value.members, direct_subgroups: value.subgroups };
}
