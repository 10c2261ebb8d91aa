import type { SystemGroupName } from "../world/system-groups.js";

/**
 * How a group-permission setting may be set, as Zulip's GroupPermissionSetting. Every
 * setting of the realm, of channels and of user groups is described here once; the
 * permissions module reads these, endpoints never re-derive them.
 */
export interface GroupPermissionSetting {
  /** May the setting be role:nobody? */
  readonly allowNobodyGroup: boolean;
  /** May it be role:everyone (and so include guests)? Guests never pass a setting that may not. */
  readonly allowEveryoneGroup: boolean;
  /** May it be role:internet? */
  readonly allowInternetGroup: boolean;
  /** Must the value be a system group? */
  readonly requireSystemGroup: boolean;
  /** If set, the only system groups allowed. */
  readonly allowedSystemGroups?: readonly SystemGroupName[];
  /** System groups refused besides the allow* rules (SPEC: can_mention_group may not be role:owners). */
  readonly forbiddenSystemGroups?: readonly SystemGroupName[];
  /** Default value; "creator" = an explicit set holding just the creating user. */
  readonly defaultGroupName: SystemGroupName | "creator";
}

const setting = (
  defaultGroupName: GroupPermissionSetting["defaultGroupName"],
  options: Partial<Omit<GroupPermissionSetting, "defaultGroupName">> = {},
): GroupPermissionSetting => ({
  allowNobodyGroup: true,
  allowEveryoneGroup: false,
  allowInternetGroup: false,
  requireSystemGroup: false,
  ...options,
  defaultGroupName,
});

/** Organization-level settings (realm_* in /register). */
export const REALM_GROUP_SETTINGS = {
  can_access_all_users_group: setting("role:everyone", {
    allowEveryoneGroup: true,
    allowNobodyGroup: false,
    requireSystemGroup: true,
    allowedSystemGroups: ["role:everyone", "role:members"],
  }),
  can_add_custom_emoji_group: setting("role:members"),
  can_add_subscribers_group: setting("role:members"),
  can_create_bots_group: setting("role:members"),
  can_create_groups: setting("role:members"),
  can_create_private_channel_group: setting("role:members"),
  can_create_public_channel_group: setting("role:members"),
  can_create_web_public_channel_group: setting("role:owners", {
    requireSystemGroup: true,
    allowedSystemGroups: ["role:moderators", "role:administrators", "role:owners", "role:nobody"],
  }),
  can_create_write_only_bots_group: setting("role:members"),
  can_delete_any_message_group: setting("role:administrators"),
  can_delete_own_message_group: setting("role:everyone", { allowEveryoneGroup: true }),
  can_invite_users_group: setting("role:members"),
  can_manage_all_groups: setting("role:owners", { allowNobodyGroup: false }),
  can_manage_billing_group: setting("role:administrators", { allowNobodyGroup: false }),
  can_mention_many_users_group: setting("role:administrators", { allowEveryoneGroup: true }),
  can_move_messages_between_channels_group: setting("role:members"),
  can_move_messages_between_topics_group: setting("role:everyone", { allowEveryoneGroup: true }),
  can_resolve_topics_group: setting("role:everyone", { allowEveryoneGroup: true }),
  can_set_delete_message_policy_group: setting("role:moderators"),
  can_set_topics_policy_group: setting("role:members", { allowEveryoneGroup: true }),
  can_summarize_topics_group: setting("role:everyone", { allowEveryoneGroup: true }),
  create_multiuse_invite_group: setting("role:administrators"),
  direct_message_initiator_group: setting("role:everyone", { allowEveryoneGroup: true }),
  direct_message_permission_group: setting("role:everyone", { allowEveryoneGroup: true }),
} as const satisfies Record<string, GroupPermissionSetting>;

export type RealmGroupSettingName = keyof typeof REALM_GROUP_SETTINGS;
export const REALM_GROUP_SETTING_NAMES = Object.keys(REALM_GROUP_SETTINGS) as RealmGroupSettingName[];

/** Channel-level settings (columns `<name>_id` of streams). */
export const CHANNEL_GROUP_SETTINGS = {
  can_add_subscribers_group: setting("role:nobody"),
  can_administer_channel_group: setting("creator"),
  can_create_topic_group: setting("role:everyone", { allowEveryoneGroup: true }),
  can_delete_any_message_group: setting("role:nobody", { allowEveryoneGroup: true }),
  can_delete_own_message_group: setting("role:nobody", { allowEveryoneGroup: true }),
  can_move_messages_out_of_channel_group: setting("role:nobody", { allowEveryoneGroup: true }),
  can_move_messages_within_channel_group: setting("role:nobody", { allowEveryoneGroup: true }),
  can_remove_subscribers_group: setting("role:administrators", { allowEveryoneGroup: true }),
  can_resolve_topics_group: setting("role:nobody", { allowEveryoneGroup: true }),
  can_send_message_group: setting("role:everyone", { allowEveryoneGroup: true }),
  can_subscribe_group: setting("role:nobody"),
} as const satisfies Record<string, GroupPermissionSetting>;

export type ChannelGroupSettingName = keyof typeof CHANNEL_GROUP_SETTINGS;
export const CHANNEL_GROUP_SETTING_NAMES = Object.keys(CHANNEL_GROUP_SETTINGS) as ChannelGroupSettingName[];

/** User-group-level settings (columns `<name>_id` of user_groups). */
export const USER_GROUP_SETTINGS = {
  can_add_members_group: setting("creator"),
  can_join_group: setting("role:nobody"),
  can_leave_group: setting("role:everyone", { allowEveryoneGroup: true }),
  can_manage_group: setting("creator"),
  can_mention_group: setting("role:everyone", {
    allowEveryoneGroup: true,
    forbiddenSystemGroups: ["role:owners"],
  }),
  can_remove_members_group: setting("role:nobody"),
} as const satisfies Record<string, GroupPermissionSetting>;

export type UserGroupSettingName = keyof typeof USER_GROUP_SETTINGS;
export const USER_GROUP_SETTING_NAMES = Object.keys(USER_GROUP_SETTINGS) as UserGroupSettingName[];
