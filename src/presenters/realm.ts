import type { Config } from "../config.js";
import { realmUrl } from "../config.js";
import { bool, int, jsonColumn, type RealmRow } from "../db/rows.js";
import type { RealmSnapshot } from "../world/realm.js";
import { groupSettingValueForApi } from "../permissions/group-settings.js";
import { REALM_GROUP_SETTING_NAMES } from "../permissions/setting-registry.js";
import { LIMITS, emptyTopicDisplayName } from "../lib/realm-limits.js";
import { SEND_DIGEST_EMAILS } from "../lib/realm-properties.js";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../lib/passwords.js";
import { emojiDataUrl } from "../render/emoji-table.js";
import { OFFLINE_THRESHOLD_SECS, PRESENCE_PING_INTERVAL_SECS } from "../lib/presence.js";
import { THUMBNAIL_OUTPUT_FORMATS, formatName } from "../lib/images.js";
import { SERVER_SUPPORTED_PERMISSION_SETTINGS, legacyRealmPolicies } from "./realm-compat.js";

/** Server identity and limits shared by /server_settings and /register. */
export const ZULIP_FEATURE_LEVEL = 496;
export const ZULIP_VERSION = "11.0-chatd";
export const ZULIP_MERGE_BASE = "11.0";

/** The default realm icon, a file the server serves under /static. */
export const DEFAULT_REALM_ICON_PATH = "/static/images/logo/chatd-icon-128x128.png";

export function realmIconUrl(config: Config, realm: RealmRow): string {
  return `${realmUrl(config)}${DEFAULT_REALM_ICON_PATH}?version=${realm.icon_version}`;
}

/** Zulip's GIPHY_RATING_OPTIONS: what realm_giphy_rating may be. */
const GIPHY_RATING_OPTIONS = {
  disabled: { name: "GIPHY integration disabled", id: 0 },
  y: { name: "Allow GIFs rated Y (Very young audience)", id: 1 },
  g: { name: "Allow GIFs rated G (General audience)", id: 2 },
  pg: { name: "Allow GIFs rated PG (Parental guidance)", id: 3 },
  "pg-13": { name: "Allow GIFs rated PG-13 (Parental guidance - under 13)", id: 4 },
  r: { name: "Allow GIFs rated R (Restricted)", id: 5 },
};

/** POST /register's `realm` fetch type: realm_* settings, server limits and timings. */
export function presentRealmState(
  config: Config,
  snapshot: RealmSnapshot,
  longpollTimeoutSecs: number,
): Record<string, unknown> {
  const realm = snapshot.realm;
  const url = realmUrl(config);
  const state: Record<string, unknown> = {
    realm_name: realm.name,
    realm_description: realm.description,
    realm_date_created: int(realm.date_created),
    realm_url: url,
    realm_uri: url,
    realm_icon_url: realmIconUrl(config, realm),
    realm_icon_source: realm.icon_source,
    realm_logo_url: "",
    realm_logo_source: "D",
    realm_night_logo_url: "",
    realm_night_logo_source: "D",
    realm_default_language: realm.default_language,
    realm_topics_policy: realm.topics_policy,
    realm_mandatory_topics: bool(realm.mandatory_topics),
    realm_empty_topic_display_name: emptyTopicDisplayName(realm),
    realm_enable_spectator_access: bool(realm.enable_spectator_access),
    realm_require_unique_names: bool(realm.require_unique_names),
    realm_name_changes_disabled: bool(realm.name_changes_disabled),
    realm_email_changes_disabled: bool(realm.email_changes_disabled),
    realm_avatar_changes_disabled: bool(realm.avatar_changes_disabled),
    realm_invite_required: bool(realm.invite_required),
    realm_emails_restricted_to_domains: bool(realm.emails_restricted_to_domains),
    realm_disallow_disposable_email_addresses: true,
    realm_allow_message_editing: bool(realm.allow_message_editing),
    realm_allow_edit_history: bool(realm.allow_edit_history),
    realm_message_edit_history_visibility_policy: realm.message_edit_history_visibility_policy,
    realm_message_content_edit_limit_seconds: realm.message_content_edit_limit_seconds,
    realm_message_content_delete_limit_seconds: realm.message_content_delete_limit_seconds,
    realm_move_messages_within_stream_limit_seconds: realm.move_messages_within_stream_limit_seconds,
    realm_move_messages_between_streams_limit_seconds: realm.move_messages_between_streams_limit_seconds,
    realm_message_retention_days: realm.message_retention_days ?? -1,
    realm_waiting_period_threshold: realm.waiting_period_threshold,
    realm_new_stream_announcements_stream_id: realm.new_stream_announcements_stream_id ?? -1,
    realm_signup_announcements_stream_id: realm.signup_announcements_stream_id ?? -1,
    realm_zulip_update_announcements_stream_id: realm.zulip_update_announcements_stream_id ?? -1,
    realm_moderation_request_channel_id: realm.moderation_request_channel_id ?? -1,
    realm_enable_read_receipts: bool(realm.enable_read_receipts),
    realm_inline_image_preview: bool(realm.inline_image_preview),
    realm_inline_url_embed_preview: bool(realm.inline_url_embed_preview),
    realm_presence_disabled: bool(realm.presence_disabled),
    realm_send_welcome_emails: bool(realm.send_welcome_emails),
    realm_message_content_allowed_in_email_notifications: bool(
      realm.message_content_allowed_in_email_notifications,
    ),
    // As Zulip: only where the server sends digest emails, which chatd never does.
    realm_digest_emails_enabled: bool(realm.digest_emails_enabled) && SEND_DIGEST_EMAILS,
    settings_send_digest_emails: SEND_DIGEST_EMAILS,
    realm_digest_weekday: realm.digest_weekday,
    realm_enable_guest_user_indicator: bool(realm.enable_guest_user_indicator),
    realm_enable_guest_user_dm_warning: bool(realm.enable_guest_user_dm_warning),
    realm_default_code_block_language: realm.default_code_block_language,
    realm_video_chat_provider: realm.video_chat_provider,
    realm_giphy_rating: realm.giphy_rating,
    giphy_rating_options: GIPHY_RATING_OPTIONS,
    // No video call provider is offered (see realm_available_video_chat_providers), so
    // no Jitsi server is configured; Zulip then sends null for all three.
    realm_jitsi_server_url: null,
    server_jitsi_server_url: null,
    jitsi_server_url: null,
    realm_org_type: realm.org_type,
    realm_plan_type: 1,
    realm_is_zephyr_mirror_realm: false,
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    realm_push_notifications_enabled: false,
    realm_push_notifications_enabled_end_timestamp: null,
    // chatd's setting (one organization per server); 0 there means no quota, null here.
    realm_upload_quota_mib: config.realm_upload_quota_mib === 0 ? null : config.realm_upload_quota_mib,
    realm_want_advertise_in_communities_directory: false,
    realm_require_e2ee_push_notifications: false,
    realm_bot_domain: new URL(url).hostname,
    realm_authentication_methods: {
      Email: { enabled: true, available: true },
    },
    realm_available_video_chat_providers: { disabled: { name: "None", id: 0 } },
    realm_default_external_accounts: {},
    realm_welcome_message_custom_text: realm.welcome_message_custom_text,
    zulip_plan_is_not_limited: true,
    upgrade_text_for_wide_organization_logo: "",
    development_environment: false,
    server_generation: 1,
    password_min_length: PASSWORD_MIN_LENGTH,
    password_max_length: PASSWORD_MAX_LENGTH,
    password_min_guesses: 10000,
    max_file_upload_size_mib: config.max_file_upload_size_mib,
    max_avatar_file_size_mib: config.max_avatar_file_size_mib,
    max_icon_file_size_mib: 0,
    max_logo_file_size_mib: 0,
    server_inline_image_preview: true,
    server_inline_url_embed_preview: false,
    server_emoji_data_url: emojiDataUrl(url),
    server_thumbnail_formats: THUMBNAIL_OUTPUT_FORMATS.map((format) => ({
      name: formatName(format),
      max_width: format.maxWidth,
      max_height: format.maxHeight,
      format: format.extension,
      animated: format.animated,
    })),
    server_avatar_changes_disabled: false,
    server_name_changes_disabled: false,
    server_needs_upgrade: false,
    server_web_public_streams_enabled: config.web_public_streams_enabled,
    server_can_summarize_topics: false,
    server_presence_ping_interval_seconds: PRESENCE_PING_INTERVAL_SECS,
    server_presence_offline_threshold_seconds: OFFLINE_THRESHOLD_SECS,
    server_typing_started_expiry_period_milliseconds: 15000,
    server_typing_stopped_wait_period_milliseconds: 5000,
    server_typing_started_wait_period_milliseconds: 10000,
    // Zulip's defaults; chatd never deactivates or deletes an organization.
    server_min_deactivated_realm_deletion_days: 14,
    server_max_deactivated_realm_deletion_days: null,
    server_supported_permission_settings: SERVER_SUPPORTED_PERMISSION_SETTINGS,
    event_queue_longpoll_timeout_seconds: longpollTimeoutSecs,
    ...LIMITS,
    ...legacyRealmPolicies(snapshot),
    ...jsonColumn<Record<string, unknown>>(realm.extra_settings, {}),
  };
  for (const name of REALM_GROUP_SETTING_NAMES) {
    const groupId = realm[`${name}_id`] as number | null;
    if (groupId !== null) state[`realm_${name}`] = groupSettingValueForApi(snapshot, groupId);
  }
  return state;
}
