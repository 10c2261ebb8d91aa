import {
  absoluteUrl,
  bool,
  either,
  hexColor,
  int,
  isoDate,
  list,
  map,
  object,
  oneOf,
  optional,
  string,
  type Check,
} from "./decoder-checks.js";

/**
 * What the Zulip mobile app (github zulip/zulip-flutter, lib/api/model/initial_snapshot.dart
 * and model.dart with their generated .g.dart decoders) requires of POST /register's
 * response: every top-level key it decodes, with the nested types it decodes them into.
 * Required fields use the plain checks; `optional` marks `X?` fields and fields with a
 * default. Enums list the values the app knows where an unknown one throws, and also where
 * it degrades to "unknown" (a value chatd sends should never be unknown to the app).
 */

/** The registration the app makes (lib/api/route/events.dart registerQueue, store.dart). */
export const MOBILE_APP_REGISTER = {
  // The app JSON-encodes every plain string: the quotes are part of the value.
  idle_queue_timeout: '"mobile"',
  apply_markdown: true,
  client_gravatar: false,
  slim_presence: true,
  client_capabilities: {
    notification_settings_null: true,
    bulk_message_deletion: true,
    user_avatar_url_field_optional: true,
    stream_typing_notifications: true,
    user_settings_object: true,
    include_deactivated_groups: true,
    empty_topic_name: true,
    individual_emoji_changes: true,
  },
};

const ids = list(int);

/** GroupSettingValue: a group's ID, or the anonymous {direct_members, direct_subgroups}. */
export const groupSetting: Check = either(int, object({ direct_members: ids, direct_subgroups: ids }));

const reactionType = oneOf("unicode_emoji", "realm_emoji", "zulip_extra_emoji");

const customProfileField = object({
  id: int,
  type: oneOf(1, 2, 3, 4, 5, 6, 7, 8),
  order: int,
  name: string,
  hint: string,
  field_data: string,
  display_in_profile_summary: optional(bool),
});

const realmEmoji = object({
  id: string,
  name: string,
  source_url: string,
  still_url: optional(string),
  deactivated: bool,
  author_id: optional(int),
});

const userGroup = object({
  id: int,
  members: ids,
  direct_subgroup_ids: ids,
  name: string,
  description: string,
  is_system_group: bool,
  deactivated: optional(bool),
});

const unreadMessages = object({
  count: int,
  pms: list(object({ other_user_id: int, unread_message_ids: ids })),
  streams: list(object({ topic: string, stream_id: int, unread_message_ids: ids })),
  huddles: list(object({ user_ids_string: string, unread_message_ids: ids })),
  mentions: ids,
  old_unreads_missing: bool,
});

const userSettings = object({
  twenty_four_hour_time: optional(bool),
  starred_message_counts: bool,
  display_emoji_reaction_users: bool,
  emojiset: oneOf("google", "google-blob", "twitter", "text"),
  web_inbox_show_channel_folders: optional(bool),
  presence_enabled: bool,
});

/** UserStatusChange (model.dart, hand-written): the emoji part counts only when complete. */
const userStatus: Check = (v, p) => {
  const fields = object({
    status_text: optional(string),
    emoji_name: optional(string),
    emoji_code: optional(string),
    reaction_type: optional(string),
  })(v, p);
  if (fields.length > 0) return fields;
  const s = v as Record<string, string | null | undefined>;
  const parts = [s.emoji_name, s.emoji_code, s.reaction_type];
  const applies = parts.every((x) => x !== undefined && x !== null) && !parts.includes("");
  return applies ? reactionType(s.reaction_type, `${p}.reaction_type`) : [];
};

const clientDevice = object({
  push_key_id: optional(int),
  push_token_id: optional(string),
  pending_push_token_id: optional(string),
  push_token_last_updated_timestamp: optional(int),
  push_registration_error_code: optional(string),
});

/** User; in the snapshot, is_active is filled in when absent (not so in realm_user events). */
const user = object({
  user_id: int,
  delivery_email: optional(string),
  email: string,
  full_name: string,
  date_joined: isoDate,
  is_active: optional(bool),
  is_bot: bool,
  bot_type: optional(int),
  bot_owner_id: optional(int),
  role: oneOf(100, 200, 300, 400, 600),
  timezone: string,
  avatar_url: optional(string),
  avatar_version: int,
  profile_data: optional(map(object({ value: string, rendered_value: optional(string) }), { intKeys: true })),
  is_system_bot: optional(bool),
});

const channelFields = {
  stream_id: int,
  name: string,
  is_archived: optional(bool),
  description: string,
  rendered_description: string,
  date_created: int,
  first_message_id: optional(int),
  invite_only: bool,
  is_web_public: bool,
  history_public_to_subscribers: bool,
  message_retention_days: optional(int),
  topics_policy: optional(oneOf("inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only")),
  stream_post_policy: optional(oneOf(1, 2, 3, 4)),
  folder_id: optional(int),
  can_add_subscribers_group: optional(groupSetting),
  can_delete_any_message_group: optional(groupSetting),
  can_delete_own_message_group: optional(groupSetting),
  can_send_message_group: optional(groupSetting),
  can_subscribe_group: optional(groupSetting),
  is_recently_active: optional(bool),
  stream_weekly_traffic: optional(int),
};

/** Subscription extends ZulipStream (null notification settings: notification_settings_null). */
const subscription = object({
  ...channelFields,
  desktop_notifications: optional(bool),
  email_notifications: optional(bool),
  wildcard_mentions_notify: optional(bool),
  push_notifications: optional(bool),
  audible_notifications: optional(bool),
  pin_to_top: bool,
  is_muted: bool,
  color: hexColor,
});

/** InitialSnapshot: every key the app decodes (it ignores all others). */
export const MOBILE_APP_SNAPSHOT: Readonly<Record<string, Check>> = {
  // The decoder allows null; the store then throws "bad initial snapshot: missing queueId".
  queue_id: string,
  last_event_id: int,
  zulip_feature_level: int,
  zulip_version: string,
  zulip_merge_base: string,
  alert_words: list(string),
  custom_profile_fields: list(customProfileField),
  max_stream_name_length: int,
  max_topic_length: int,
  server_presence_ping_interval_seconds: int,
  server_presence_offline_threshold_seconds: int,
  server_typing_started_expiry_period_milliseconds: optional(int),
  server_typing_stopped_wait_period_milliseconds: optional(int),
  server_typing_started_wait_period_milliseconds: optional(int),
  muted_users: list(object({ id: int })),
  presences: map(object({ active_timestamp: int, idle_timestamp: int }), { intKeys: true }),
  realm_emoji: map(realmEmoji),
  realm_user_groups: list(userGroup),
  recent_private_conversations: list(object({ max_message_id: int, user_ids: ids })),
  saved_snippets: optional(list(object({ id: int, title: string, content: string, date_created: int }))),
  subscriptions: list(subscription),
  channel_folders: optional(
    list(
      object({
        id: int,
        name: string,
        order: optional(int),
        date_created: optional(int),
        creator_id: optional(int),
        description: string,
        rendered_description: string,
        is_archived: bool,
      }),
    ),
  ),
  unread_msgs: unreadMessages,
  starred_messages: ids,
  streams: list(object(channelFields)),
  user_status: map(userStatus, { intKeys: true }),
  user_settings: userSettings,
  user_topics: list(
    object({ stream_id: int, topic_name: string, last_updated: int, visibility_policy: oneOf(0, 1, 2, 3) }),
  ),
  devices: optional(map(clientDevice, { intKeys: true })),
  realm_can_delete_any_message_group: optional(groupSetting),
  realm_can_delete_own_message_group: optional(groupSetting),
  realm_delete_own_message_policy: optional(oneOf(1, 2, 3, 4, 5)),
  realm_wildcard_mention_policy: oneOf(1, 2, 3, 5, 6, 7),
  realm_topics_policy: optional(oneOf("allow_empty_topic", "disable_empty_topic")),
  realm_mandatory_topics: optional(bool),
  realm_name: string,
  realm_waiting_period_threshold: int,
  realm_message_content_delete_limit_seconds: optional(int),
  realm_allow_message_editing: bool,
  realm_message_content_edit_limit_seconds: optional(int),
  realm_enable_read_receipts: bool,
  realm_icon_url: string,
  realm_presence_disabled: bool,
  realm_default_external_accounts: map(
    object({ name: string, text: string, hint: string, url_pattern: string }),
  ),
  max_file_upload_size_mib: int,
  server_thumbnail_formats: optional(
    list(object({ name: string, max_width: int, max_height: int, animated: bool, format: string })),
  ),
  // Fetched as-is, never resolved against the realm.
  server_emoji_data_url: absoluteUrl,
  event_queue_longpoll_timeout_seconds: int,
  realm_moderation_request_channel_id: optional(int),
  // Optional to the decoder, asserted non-null from feature level 334 (model/realm.dart).
  realm_empty_topic_display_name: string,
  realm_users: list(user),
  realm_non_active_users: list(user),
  cross_realm_bots: list(user),
  server_report_message_types: optional(list(object({ key: string, name: string }))),
};
