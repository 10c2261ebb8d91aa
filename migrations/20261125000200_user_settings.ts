import type { Knex } from "knex";

/**
 * Personal settings (PATCH /settings) as typed columns: on `users`, and on one
 * `realm_user_settings_defaults` row per realm that new users copy, as Zulip's
 * UserBaseSettings columns are shared by UserProfile and RealmUserDefault. Columns
 * rather than a key/value table: each setting keeps its type and Zulip's default in the
 * schema, a user's settings are read whole with the user row the realm cache already
 * holds, the settings that change behaviour (typing, read receipts, presence) are plain
 * fields where they are checked, and copying the realm's defaults is one row's values.
 * Existing users get the column defaults, which are also the new realm rows' values.
 *
 * Spelled out here, not taken from src/: a migration must not change once released.
 */
type Column =
  | readonly [name: string, kind: "bool", value: boolean]
  | readonly [name: string, kind: "nullable_bool", value: boolean]
  | readonly [name: string, kind: "int", value: number]
  | readonly [name: string, kind: "string", value: string];

/** Settings new to chatd (users already have default_language, presence_enabled, email_address_visibility). */
const NEW_USER_COLUMNS: readonly Column[] = [
  ["twenty_four_hour_time", "nullable_bool", false],
  ["web_mark_read_on_scroll_policy", "int", 1],
  ["web_channel_default_view", "int", 1],
  ["starred_message_counts", "bool", true],
  ["receives_typing_notifications", "bool", true],
  ["web_suggest_update_timezone", "bool", true],
  ["fluid_layout_width", "bool", false],
  ["high_contrast_mode", "bool", false],
  ["web_font_size_px", "int", 16],
  ["web_line_height_percent", "int", 140],
  ["color_scheme", "int", 1],
  ["translate_emoticons", "bool", false],
  ["display_emoji_reaction_users", "bool", true],
  ["web_home_view", "string", "inbox"],
  ["web_escape_navigates_to_home_view", "bool", true],
  ["left_side_userlist", "bool", false],
  ["emojiset", "string", "google"],
  ["demote_inactive_streams", "int", 1],
  ["user_list_style", "int", 3],
  ["web_animate_image_previews", "string", "on_hover"],
  ["web_stream_unreads_count_display_policy", "int", 2],
  ["hide_ai_features", "bool", false],
  ["web_left_sidebar_show_channel_folders", "bool", true],
  ["web_left_sidebar_unreads_count_summary", "bool", true],
  ["enter_sends", "bool", false],
  ["enable_drafts_synchronization", "bool", true],
  ["enable_stream_desktop_notifications", "bool", false],
  ["enable_stream_email_notifications", "bool", false],
  ["enable_stream_push_notifications", "bool", false],
  ["enable_stream_audible_notifications", "bool", false],
  ["notification_sound", "string", "zulip"],
  ["enable_desktop_notifications", "bool", true],
  ["enable_sounds", "bool", true],
  ["enable_followed_topic_desktop_notifications", "bool", true],
  ["enable_followed_topic_email_notifications", "bool", true],
  ["enable_followed_topic_push_notifications", "bool", true],
  ["enable_followed_topic_audible_notifications", "bool", true],
  ["email_notifications_batching_period_seconds", "int", 120],
  ["enable_offline_email_notifications", "bool", true],
  ["enable_offline_push_notifications", "bool", true],
  ["enable_online_push_notifications", "bool", true],
  ["enable_digest_emails", "bool", true],
  ["enable_marketing_emails", "bool", true],
  ["enable_login_emails", "bool", true],
  ["message_content_in_email_notifications", "bool", true],
  ["pm_content_in_desktop_notifications", "bool", true],
  ["wildcard_mentions_notify", "bool", true],
  ["enable_followed_topic_wildcard_mentions_notify", "bool", true],
  ["desktop_icon_count_display", "int", 1],
  ["realm_name_in_email_notifications_policy", "int", 1],
  ["automatically_follow_topics_policy", "int", 3],
  ["automatically_unmute_topics_in_muted_streams_policy", "int", 2],
  ["automatically_follow_topics_where_mentioned", "bool", true],
  ["resolved_topic_notice_auto_read_policy", "string", "except_followed"],
  ["send_private_typing_notifications", "bool", true],
  ["send_stream_typing_notifications", "bool", true],
  ["send_read_receipts", "bool", true],
  ["allow_private_data_export", "bool", false],
  ["web_navigate_to_sent_message", "bool", true],
];

/** What the realm defaults have besides the new columns (the user-only timezone excepted). */
const OLDER_DEFAULT_COLUMNS: readonly Column[] = [
  ["default_language", "string", "en"],
  ["presence_enabled", "bool", true],
  ["email_address_visibility", "int", 1],
];

function addColumn(t: Knex.CreateTableBuilder, [name, kind, value]: Column): void {
  switch (kind) {
    case "bool":
      t.boolean(name).notNullable().defaultTo(value);
      break;
    case "nullable_bool":
      t.boolean(name).nullable().defaultTo(value);
      break;
    case "int":
      t.integer(name).notNullable().defaultTo(value);
      break;
    case "string":
      t.string(name, 40).notNullable().defaultTo(value);
      break;
  }
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (t) => {
    for (const column of NEW_USER_COLUMNS) addColumn(t, column);
  });
  await knex.schema.createTable("realm_user_settings_defaults", (t) => {
    t.integer("realm_id").primary().references("realms.id").onDelete("CASCADE");
    for (const column of [...OLDER_DEFAULT_COLUMNS, ...NEW_USER_COLUMNS]) addColumn(t, column);
  });
  const realms = await knex("realms").select<Array<{ id: number }>>("id");
  if (realms.length > 0) {
    await knex("realm_user_settings_defaults").insert(realms.map((r) => ({ realm_id: r.id })));
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("realm_user_settings_defaults");
  await knex.schema.alterTable("users", (t) => {
    for (const [name] of NEW_USER_COLUMNS) t.dropColumn(name);
  });
}
