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
  digest_emails_enabled: DbBool;
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

export interface UserRow {
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
  timezone: string;
  avatar_source: string;
  avatar_version: number;
  email_address_visibility: number;
  password_hash: string | null;
  default_language: string;
  presence_enabled: DbBool;
  can_create_users: DbBool;
  can_change_user_emails: DbBool;
  can_forge_sender: DbBool;
  default_sending_stream_id: number | null;
  default_events_register_stream_id: number | null;
  default_all_public_streams: DbBool;
  last_active_message_id: DbBigInt | null;
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
