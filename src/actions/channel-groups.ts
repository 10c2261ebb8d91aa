import type { UserGroupRow, UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { JsonableError, insufficientPermission } from "../errors.js";
import { RealmSnapshot, type GroupNode } from "../world/realm.js";
import type { GroupSettingValue } from "../permissions/group-settings.js";
import {
  defaultGroupSetting,
  storeGroupSetting,
  validateGroupSetting,
  type NormalizedGroupSetting,
} from "../permissions/group-setting-values.js";
import { userHasRealmPermission } from "../permissions/setting-permissions.js";
import {
  CHANNEL_GROUP_SETTINGS,
  CHANNEL_GROUP_SETTING_NAMES,
  type ChannelGroupSettingName,
} from "../permissions/setting-registry.js";

/** Channel group settings as given in a request (absent ones take their defaults). */
export type ChannelGroupParams = Partial<Record<ChannelGroupSettingName, GroupSettingValue>>;
export type ChannelGroupValues = Record<ChannelGroupSettingName, NormalizedGroupSetting>;

export const incompatibleParameters = (parameters: readonly string[]) =>
  new JsonableError(
    `Unsupported parameter combination: ${parameters.join(", ")}`,
    "INCOMPATIBLE_PARAMETERS",
    400,
    { parameters: parameters.join(", ") },
  );

/** A private channel's history is protected unless asked otherwise; public ones are always shared. */
export const effectiveHistoryPublic = (inviteOnly: boolean, historyPublic: boolean | undefined) =>
  inviteOnly ? (historyPublic ?? false) : true;

/**
 * With protected history everyone must be able to start topics: can_create_topic_group
 * must then be exactly role:everyone (an explicit set containing it does not count).
 */
export function validateCreateTopicGroupForHistory(
  realm: RealmSnapshot,
  historyPublic: boolean,
  canCreateTopicGroup: NormalizedGroupSetting,
): void {
  if (historyPublic) return;
  if (
    canCreateTopicGroup.kind !== "named" ||
    canCreateTopicGroup.groupId !== realm.systemGroupId("role:everyone")
  ) {
    throw incompatibleParameters(["history_public_to_subscribers", "can_create_topic_group"]);
  }
}

const DELETE_SETTINGS: readonly ChannelGroupSettingName[] = [
  "can_delete_any_message_group",
  "can_delete_own_message_group",
];

/**
 * Who may delete messages in a channel is the organization's business: granting it to
 * anyone needs can_set_delete_message_policy_group.
 */
export function requireDeletePolicyPermission(
  realm: RealmSnapshot,
  user: UserRow,
  setting: ChannelGroupSettingName,
  value: NormalizedGroupSetting,
): void {
  if (!DELETE_SETTINGS.includes(setting)) return;
  const nobody = value.kind === "named" && value.groupId === realm.systemGroupId("role:nobody");
  if (!nobody && !userHasRealmPermission(realm, user, "can_set_delete_message_policy_group")) {
    throw insufficientPermission();
  }
}

/** Validates the group settings of a channel being created; absent ones get defaults. */
export function validateCreationGroupSettings(
  realm: RealmSnapshot,
  creator: UserRow,
  given: ChannelGroupParams,
  historyPublic: boolean,
): ChannelGroupValues {
  const values = {} as ChannelGroupValues;
  for (const setting of CHANNEL_GROUP_SETTING_NAMES) {
    const config = CHANNEL_GROUP_SETTINGS[setting];
    const value = given[setting];
    if (value === undefined) {
      values[setting] = defaultGroupSetting(realm, config, creator.id);
      continue;
    }
    const normalized = validateGroupSetting(realm, setting, config, value);
    if (setting === "can_create_topic_group")
      validateCreateTopicGroupForHistory(realm, historyPublic, normalized);
    requireDeletePolicyPermission(realm, creator, setting, normalized);
    values[setting] = normalized;
  }
  return values;
}

/** Stores a value; an explicit set becomes an anonymous group, returned as a node too. */
export async function storeChannelGroupSetting(
  tx: Tx,
  realmId: number,
  value: NormalizedGroupSetting,
): Promise<{ groupId: number; node: GroupNode | null }> {
  const groupId = await storeGroupSetting(tx, realmId, value);
  if (value.kind === "named") return { groupId, node: null };
  const row: UserGroupRow = {
    id: groupId,
    realm_id: realmId,
    name: null,
    description: "",
    is_system_group: false,
    deactivated: false,
    date_created: tx.now,
    creator_id: null,
    can_add_members_group_id: null,
    can_join_group_id: null,
    can_leave_group_id: null,
    can_manage_group_id: null,
    can_mention_group_id: null,
    can_remove_members_group_id: null,
  };
  return { groupId, node: { row, members: value.members, subgroups: value.subgroups } };
}

/**
 * The realm as this transaction sees it after storing anonymous groups (and dropping
 * replaced ones): presenters and recipient computations read group members from it.
 */
export function realmWithGroups(
  realm: RealmSnapshot,
  added: readonly GroupNode[],
  removed: readonly number[] = [],
): RealmSnapshot {
  if (added.length === 0 && removed.length === 0) return realm;
  const gone = new Set(removed);
  const groups = [...realm.groups.values()].filter((g) => !gone.has(g.row.id)).concat(added);
  return new RealmSnapshot(realm.realm, [...realm.usersById.values(), ...realm.systemBots], groups);
}
