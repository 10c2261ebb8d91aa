import type { SystemGroupName } from "./system-groups.js";

/** How a group-permission setting may be set, as Zulip's GroupPermissionSetting. */
export interface GroupPermissionSetting {
  /** May the setting be role:nobody (or an empty explicit set)? */
  readonly allowNobodyGroup: boolean;
  /** May it include role:everyone (and so guests)? Guests never pass a setting that may not. */
  readonly allowEveryoneGroup: boolean;
  /** May it be role:internet? */
  readonly allowInternetGroup: boolean;
  /** May it be an explicit {direct_members, direct_subgroups} value? */
  readonly allowAnonymousGroup?: boolean;
  /** Must it be a system group? */
  readonly requireSystemGroup?: boolean;
  readonly defaultGroupName: SystemGroupName;
}

const setting = (
  defaultGroupName: SystemGroupName,
  options: Partial<Omit<GroupPermissionSetting, "defaultGroupName">> = {},
): GroupPermissionSetting => ({
  allowNobodyGroup: true,
  allowEveryoneGroup: false,
  allowInternetGroup: false,
  allowAnonymousGroup: true,
  ...options,
  defaultGroupName,
});

/** Organization-level settings (realm_* in /register). */
export const REALM_GROUP_SETTINGS = {
  can_access_all_users_group: setting("role:everyone", {
    allowEveryoneGroup: true,
    allowNobodyGroup: false,
    requireSystemGroup: true,
  }),
  can_add_custom_emoji_group: setting("role:members"),
  can_add_subscribers_group: setting("role:members"),
  can_create_bots_group: setting("role:members"),
  can_create_groups: setting("role:members"),
  can_create_private_channel_group: setting("role:members"),
  can_create_public_channel_group: setting("role:members"),
  can_create_web_public_channel_group: setting("role:owners", { requireSystemGroup: true }),
  can_create_write_only_bots_group: setting("role:members"),
  can_delete_any_message_group: setting("role:administrators", { allowNobodyGroup: false }),
  can_delete_own_message_group: setting("role:everyone", { allowEveryoneGroup: true }),
  can_invite_users_group: setting("role:members"),
  can_manage_all_groups: setting("role:owners", { allowNobodyGroup: false }),
  can_manage_billing_group: setting("role:administrators", { allowNobodyGroup: false }),
  can_mention_many_users_group: setting("role:administrators", { allowEveryoneGroup: true }),
  can_move_messages_between_channels_group: setting("role:members"),
  can_move_messages_between_topics_group: setting("role:everyone", { allowEveryoneGroup: true }),
  can_resolve_topics_group: setting("role:everyone", { allowEveryoneGroup: true }),
  can_set_delete_message_policy_group: setting("role:moderators", { allowNobodyGroup: false }),
  can_set_topics_policy_group: setting("role:moderators"),
  can_summarize_topics_group: setting("role:everyone", { allowEveryoneGroup: true }),
  create_multiuse_invite_group: setting("role:administrators"),
  direct_message_initiator_group: setting("role:everyone", { allowEveryoneGroup: true }),
  direct_message_permission_group: setting("role:everyone", { allowEveryoneGroup: true }),
} as const satisfies Record<string, GroupPermissionSetting>;

export type RealmGroupSettingName = keyof typeof REALM_GROUP_SETTINGS;
export const REALM_GROUP_SETTING_NAMES = Object.keys(REALM_GROUP_SETTINGS) as RealmGroupSettingName[];
