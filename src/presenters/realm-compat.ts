import { bool } from "../db/rows.js";
import {
  CHANNEL_GROUP_SETTINGS,
  REALM_GROUP_SETTINGS,
  USER_GROUP_SETTINGS,
  type GroupPermissionSetting,
} from "../permissions/setting-registry.js";
import type { RealmSnapshot } from "../world/realm.js";

/**
 * The parts of the `realm` fetch type that describe the server's rules rather than the
 * realm's settings, and the deprecated settings Zulip still derives for older clients.
 */

/** Zulip's GroupPermissionSetting as /register's server_supported_permission_settings lists it. */
function presentPermissionSetting(
  setting: GroupPermissionSetting,
  creatorGroupName: string,
  defaultForSystemGroups: string | null,
) {
  return {
    require_system_group: setting.requireSystemGroup,
    allow_internet_group: setting.allowInternetGroup,
    allow_nobody_group: setting.allowNobodyGroup,
    allow_everyone_group: setting.allowEveryoneGroup,
    default_group_name: setting.defaultGroupName === "creator" ? creatorGroupName : setting.defaultGroupName,
    default_for_system_groups: defaultForSystemGroups,
    allowed_system_groups: [...(setting.allowedSystemGroups ?? [])],
  };
}

const presentAll = (
  settings: Record<string, GroupPermissionSetting>,
  creatorGroupName: string,
  defaultForSystemGroups: string | null,
) =>
  Object.fromEntries(
    Object.entries(settings).map(([name, setting]) => [
      name,
      presentPermissionSetting(setting, creatorGroupName, defaultForSystemGroups),
    ]),
  );

/**
 * server_supported_permission_settings: the registry the server enforces. Zulip names
 * the "creator" defaults stream_creator_or_nobody and group_creator, and a system
 * group's own settings default to role:nobody.
 */
export const SERVER_SUPPORTED_PERMISSION_SETTINGS = {
  realm: presentAll(REALM_GROUP_SETTINGS, "role:nobody", null),
  stream: presentAll(CHANNEL_GROUP_SETTINGS, "stream_creator_or_nobody", null),
  group: presentAll(USER_GROUP_SETTINGS, "group_creator", "role:nobody"),
};

/** Zulip's policy enums (Realm.POLICY_*), which the group settings replaced. */
const POLICY = { members: 1, admins: 2, fullMembers: 3, moderators: 4, everyone: 5, nobody: 6, owners: 7 };
const POLICY_BY_SYSTEM_GROUP: Readonly<Record<string, number>> = {
  "role:owners": POLICY.owners,
  "role:administrators": POLICY.admins,
  "role:moderators": POLICY.moderators,
  "role:fullmembers": POLICY.fullMembers,
  "role:members": POLICY.members,
  "role:everyone": POLICY.everyone,
  "role:nobody": POLICY.nobody,
};
const COMMON_POLICIES = [POLICY.members, POLICY.admins, POLICY.fullMembers, POLICY.moderators];
const WEB_PUBLIC_POLICIES = [POLICY.admins, POLICY.moderators, POLICY.nobody, POLICY.owners];
/** WildcardMentionPolicyEnum: its own numbering; owners has no value of its own. */
const WILDCARD_MENTION_POLICY_BY_SYSTEM_GROUP: Readonly<Record<string, number>> = {
  "role:everyone": 1,
  "role:members": 2,
  "role:fullmembers": 3,
  "role:administrators": 5,
  "role:nobody": 6,
  "role:moderators": 7,
};
const WILDCARD_MENTION_EVERYONE = 1;

type LegacySetting =
  | "can_create_public_channel_group"
  | "can_create_private_channel_group"
  | "can_create_web_public_channel_group"
  | "can_mention_many_users_group";

/** The system group a setting holds, if it holds one. */
function systemGroupName(snapshot: RealmSnapshot, groupId: number | null): string | null {
  const row = groupId === null ? undefined : snapshot.groups.get(groupId)?.row;
  return row && bool(row.is_system_group) ? row.name : null;
}

/**
 * Zulip's get_corresponding_policy_value_for_group_setting: the old enum for a group
 * setting when it holds a system group the enum could express, else the enum of the
 * largest group the old setting allowed.
 */
function legacyPolicy(snapshot: RealmSnapshot, setting: LegacySetting): number {
  const name = systemGroupName(snapshot, snapshot.realm[`${setting}_id`] as number | null);
  if (setting === "can_mention_many_users_group") {
    return name === null
      ? WILDCARD_MENTION_EVERYONE
      : (WILDCARD_MENTION_POLICY_BY_SYSTEM_GROUP[name] ?? WILDCARD_MENTION_EVERYONE);
  }
  const allowed = setting === "can_create_web_public_channel_group" ? WEB_PUBLIC_POLICIES : COMMON_POLICIES;
  const policy = name === null ? undefined : POLICY_BY_SYSTEM_GROUP[name];
  if (policy !== undefined && allowed.includes(policy)) return policy;
  return setting === "can_create_web_public_channel_group" ? POLICY.moderators : POLICY.members;
}

/** The deprecated *_policy keys, derived from the group settings that replaced them. */
export function legacyRealmPolicies(snapshot: RealmSnapshot): Record<string, number> {
  return {
    realm_create_public_stream_policy: legacyPolicy(snapshot, "can_create_public_channel_group"),
    realm_create_private_stream_policy: legacyPolicy(snapshot, "can_create_private_channel_group"),
    realm_create_web_public_stream_policy: legacyPolicy(snapshot, "can_create_web_public_channel_group"),
    realm_wildcard_mention_policy: legacyPolicy(snapshot, "can_mention_many_users_group"),
  };
}
