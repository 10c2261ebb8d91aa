/**
 * Row shapes as the driver returns them. SQLite gives booleans as 0/1 and PostgreSQL
 * gives bigints as strings, so code reads columns through `bool()` / `int()`.
 */
export type DbBool = boolean | 0 | 1;
export type DbBigInt = number | string;

export const bool = (value: DbBool | null | undefined): boolean => value === true || value === 1;
export const int = (value: DbBigInt): number => (typeof value === "number" ? value : Number(value));
export const intOrNull = (value: DbBigInt | null | undefined): number | null =>
  value === null || value === undefined ? null : int(value);

/** Parses a JSON text column (SQLite) or passes through a decoded json column (PostgreSQL). */
export function jsonColumn<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined || value === "") return fallback;
  if (typeof value === "string") return JSON.parse(value) as T;
  return value as T;
}

export interface RealmRow {
  id: number;
  string_id: string;
  name: string;
  description: string;
  date_created: DbBigInt;
  deactivated: DbBool;
  default_language: string;
  topics_policy: string;
  mandatory_topics: DbBool;
  enable_spectator_access: DbBool;
  require_unique_names: DbBool;
  name_changes_disabled: DbBool;
  email_changes_disabled: DbBool;
  avatar_changes_disabled: DbBool;
  invite_required: DbBool;
  emails_restricted_to_domains: DbBool;
  allow_message_editing: DbBool;
  allow_edit_history: DbBool;
  message_edit_history_visibility_policy: string;
  message_content_edit_limit_seconds: number | null;
  message_content_delete_limit_seconds: number | null;
  move_messages_within_stream_limit_seconds: number | null;
  move_messages_between_streams_limit_seconds: number | null;
  message_retention_days: number | null;
  waiting_period_threshold: number;
  new_stream_announcements_stream_id: number | null;
  signup_announcements_stream_id: number | null;
  zulip_update_announcements_stream_id: number | null;
  moderation_request_channel_id: number | null;
  enable_read_receipts: DbBool;
  inline_image_preview: DbBool;
  inline_url_embed_preview: DbBool;
  presence_disabled: DbBool;
  send_welcome_emails: DbBool;
  welcome_message_custom_text: string;
  digest_emails_enabled: DbBool;
  message_content_allowed_in_email_notifications: DbBool;
  digest_weekday: number;
  enable_guest_user_indicator: DbBool;
  enable_guest_user_dm_warning: DbBool;
  default_code_block_language: string;
  icon_source: string;
  icon_version: number;
  video_chat_provider: number;
  giphy_rating: number;
  org_type: number;
  empty_topic_display_name: string | null;
  extra_settings: string;
  [groupSetting: `${string}_group_id` | `${string}_groups_id`]: number | null;
}

/**
 * Personal settings (PATCH /settings), one column each: on users and, but for timezone,
 * on the realm's realm_user_settings_defaults row. world/user-settings.ts describes them.
 */
export interface UserSettingsColumns {
  twenty_four_hour_time: DbBool | null;
  web_mark_read_on_scroll_policy: number;
  web_channel_default_view: number;
  starred_message_counts: DbBool;
  receives_typing_notifications: DbBool;
  web_suggest_update_timezone: DbBool;
  fluid_layout_width: DbBool;
  high_contrast_mode: DbBool;
  web_font_size_px: number;
  web_line_height_percent: number;
  color_scheme: number;
  translate_emoticons: DbBool;
  display_emoji_reaction_users: DbBool;
  default_language: string;
  web_home_view: string;
  web_escape_navigates_to_home_view: DbBool;
  left_side_userlist: DbBool;
  emojiset: string;
  demote_inactive_streams: number;
  user_list_style: number;
  web_animate_image_previews: string;
  web_stream_unreads_count_display_policy: number;
  hide_ai_features: DbBool;
  web_left_sidebar_show_channel_folders: DbBool;
  web_left_sidebar_unreads_count_summary: DbBool;
  timezone: string;
  enter_sends: DbBool;
  enable_drafts_synchronization: DbBool;
  enable_stream_desktop_notifications: DbBool;
  enable_stream_email_notifications: DbBool;
  enable_stream_push_notifications: DbBool;
  enable_stream_audible_notifications: DbBool;
  notification_sound: string;
  enable_desktop_notifications: DbBool;
  enable_sounds: DbBool;
  enable_followed_topic_desktop_notifications: DbBool;
  enable_followed_topic_email_notifications: DbBool;
  enable_followed_topic_push_notifications: DbBool;
  enable_followed_topic_audible_notifications: DbBool;
  email_notifications_batching_period_seconds: number;
  enable_offline_email_notifications: DbBool;
  enable_offline_push_notifications: DbBool;
  enable_online_push_notifications: DbBool;
  enable_digest_emails: DbBool;
  enable_marketing_emails: DbBool;
  enable_login_emails: DbBool;
  message_content_in_email_notifications: DbBool;
  pm_content_in_desktop_notifications: DbBool;
  wildcard_mentions_notify: DbBool;
  enable_followed_topic_wildcard_mentions_notify: DbBool;
  desktop_icon_count_display: number;
  realm_name_in_email_notifications_policy: number;
  automatically_follow_topics_policy: number;
  automatically_unmute_topics_in_muted_streams_policy: number;
  automatically_follow_topics_where_mentioned: DbBool;
  resolved_topic_notice_auto_read_policy: string;
  presence_enabled: DbBool;
  send_private_typing_notifications: DbBool;
  send_stream_typing_notifications: DbBool;
  send_read_receipts: DbBool;
  allow_private_data_export: DbBool;
  email_address_visibility: number;
  web_navigate_to_sent_message: DbBool;
}

export type UserSettingName = keyof UserSettingsColumns;

/** A realm's settings for new users (Zulip's RealmUserDefault). */
export type RealmUserDefaultsRow = { realm_id: number } & Omit<UserSettingsColumns, "timezone">;

export interface UserRow extends UserSettingsColumns {
  id: number;
  realm_id: number;
  email: string;
  delivery_email: string;
  full_name: string;
  role: number;
  is_bot: DbBool;
  bot_type: number | null;
  bot_owner_id: number | null;
  is_active: DbBool;
  is_deleted: DbBool;
  is_imported_stub: DbBool;
  is_mirror_dummy: DbBool;
  /** A bot of the server (Notification Bot), not a person of the realm. */
  is_system_bot: DbBool;
  date_joined: DbBigInt;
  avatar_source: string;
  avatar_version: number;
  /** An uploaded avatar's files: "<realm_id>/<salted hash>" (+ ".png", "-medium.png"). */
  avatar_file?: string | null;
  password_hash: string | null;
  can_create_users: DbBool;
  can_change_user_emails: DbBool;
  can_forge_sender: DbBool;
  default_sending_stream_id: number | null;
  default_events_register_stream_id: number | null;
  default_all_public_streams: DbBool;
  last_active_message_id: DbBigInt | null;
  /** Unused: the setting columns (UserSettingsColumns) replaced this JSON text. */
  settings: string;
}

export interface UserGroupRow {
  id: number;
  realm_id: number;
  name: string | null;
  description: string;
  is_system_group: DbBool;
  deactivated: DbBool;
  date_created: DbBigInt | null;
  creator_id: number | null;
  can_add_members_group_id: number | null;
  can_join_group_id: number | null;
  can_leave_group_id: number | null;
  can_manage_group_id: number | null;
  can_mention_group_id: number | null;
  can_remove_members_group_id: number | null;
}

export interface ApiKeyRow {
  id: number;
  user_id: number;
  key_hash: string;
  label: string;
  date_created: DbBigInt;
}

/** UNIX seconds; null until the user was first seen active (or connected). */
export interface UserPresenceRow {
  user_id: number;
  last_active_time: DbBigInt | null;
  last_connected_time: DbBigInt | null;
  last_update_id: DbBigInt;
  /** Milliseconds: when the change was recorded (0 for rows from before it was kept). */
  changed_at: DbBigInt;
}

/** An outgoing-webhook bot's service (Zulip's Service): where and how it is called. */
export interface BotServiceRow {
  id: number;
  bot_user_id: number;
  name: string;
  base_url: string;
  /** Sent in each payload so the service can tell the request is ours. */
  token: string;
  /** 1 = Zulip-format payload, 2 = Slack-compatible. */
  interface: number;
}
