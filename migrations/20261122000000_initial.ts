import type { Knex } from "knex";
import { isPostgres } from "../src/db/dialect.js";

/**
 * The whole data model, in Knex's portable schema builder.
 *
 * Conventions: UNIX timestamps are seconds in bigInteger columns; group-setting values
 * are foreign keys to user_groups (an explicit {direct_members, direct_subgroups} value
 * is stored as an anonymous group, one with a null name, as Zulip does); JSON columns
 * hold data that is only ever read whole.
 */

/** Channel-level group permission settings (all reference user_groups.id). */
const CHANNEL_GROUP_SETTINGS = [
  "can_add_subscribers_group",
  "can_administer_channel_group",
  "can_create_topic_group",
  "can_delete_any_message_group",
  "can_delete_own_message_group",
  "can_move_messages_out_of_channel_group",
  "can_move_messages_within_channel_group",
  "can_remove_subscribers_group",
  "can_resolve_topics_group",
  "can_send_message_group",
  "can_subscribe_group",
];

/** Realm-level group permission settings. */
const REALM_GROUP_SETTINGS = [
  "can_access_all_users_group",
  "can_add_custom_emoji_group",
  "can_add_subscribers_group",
  "can_create_bots_group",
  "can_create_groups",
  "can_create_private_channel_group",
  "can_create_public_channel_group",
  "can_create_web_public_channel_group",
  "can_create_write_only_bots_group",
  "can_delete_any_message_group",
  "can_delete_own_message_group",
  "can_invite_users_group",
  "can_manage_all_groups",
  "can_manage_billing_group",
  "can_mention_many_users_group",
  "can_move_messages_between_channels_group",
  "can_move_messages_between_topics_group",
  "can_resolve_topics_group",
  "can_set_delete_message_policy_group",
  "can_set_topics_policy_group",
  "can_summarize_topics_group",
  "create_multiuse_invite_group",
  "direct_message_initiator_group",
  "direct_message_permission_group",
];

/** User-group-level permission settings. */
const USER_GROUP_SETTINGS = [
  "can_add_members_group",
  "can_join_group",
  "can_leave_group",
  "can_manage_group",
  "can_mention_group",
  "can_remove_members_group",
];

/**
 * Lists read in insertion order (ORDER BY rowid) have no ID column: SQLite orders them by
 * its implicit rowid, PostgreSQL by an explicit column of that name.
 */
function insertionOrder(knex: Knex, t: Knex.CreateTableBuilder): void {
  if (isPostgres(knex)) t.bigIncrements("rowid", { primaryKey: false });
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("realms", (t) => {
    t.increments("id");
    t.string("string_id", 40).notNullable().unique();
    t.string("name", 40).notNullable();
    t.text("description").notNullable().defaultTo("");
    t.bigInteger("date_created").notNullable();
    t.boolean("deactivated").notNullable().defaultTo(false);
    t.string("org_type_name", 40).notNullable().defaultTo("business");
    t.integer("org_type").notNullable().defaultTo(0);
    t.string("default_language", 20).notNullable().defaultTo("en");
    t.string("topics_policy", 40).notNullable().defaultTo("allow_empty_topic");
    t.boolean("mandatory_topics").notNullable().defaultTo(false);
    t.boolean("enable_spectator_access").notNullable().defaultTo(false);
    t.boolean("require_unique_names").notNullable().defaultTo(false);
    t.boolean("name_changes_disabled").notNullable().defaultTo(false);
    t.boolean("email_changes_disabled").notNullable().defaultTo(false);
    t.boolean("avatar_changes_disabled").notNullable().defaultTo(false);
    t.boolean("invite_required").notNullable().defaultTo(true);
    t.boolean("emails_restricted_to_domains").notNullable().defaultTo(false);
    t.boolean("allow_message_editing").notNullable().defaultTo(true);
    t.boolean("allow_edit_history").notNullable().defaultTo(true);
    t.string("message_edit_history_visibility_policy", 20).notNullable().defaultTo("all");
    t.integer("message_content_edit_limit_seconds").nullable().defaultTo(600);
    t.integer("message_content_delete_limit_seconds").nullable();
    t.integer("move_messages_within_stream_limit_seconds").nullable().defaultTo(604800);
    t.integer("move_messages_between_streams_limit_seconds").nullable().defaultTo(604800);
    // null = keep forever (the API shows -1).
    t.integer("message_retention_days").nullable();
    t.integer("waiting_period_threshold").notNullable().defaultTo(0);
    t.integer("new_stream_announcements_stream_id").nullable();
    t.integer("signup_announcements_stream_id").nullable();
    t.integer("zulip_update_announcements_stream_id").nullable();
    t.integer("moderation_request_channel_id").nullable();
    t.boolean("enable_read_receipts").notNullable().defaultTo(false);
    t.boolean("inline_image_preview").notNullable().defaultTo(true);
    t.boolean("inline_url_embed_preview").notNullable().defaultTo(false);
    t.boolean("presence_disabled").notNullable().defaultTo(false);
    t.boolean("send_welcome_emails").notNullable().defaultTo(true);
    t.boolean("digest_emails_enabled").notNullable().defaultTo(false);
    t.integer("digest_weekday").notNullable().defaultTo(1);
    t.boolean("enable_guest_user_indicator").notNullable().defaultTo(true);
    t.boolean("enable_guest_user_dm_warning").notNullable().defaultTo(true);
    t.string("default_code_block_language", 40).notNullable().defaultTo("");
    t.string("icon_source", 1).notNullable().defaultTo("G");
    t.integer("icon_version").notNullable().defaultTo(1);
    t.integer("video_chat_provider").notNullable().defaultTo(1);
    t.integer("giphy_rating").notNullable().defaultTo(2);
    t.string("empty_topic_display_name", 60).nullable();
    // Anything rarely read and never queried on.
    t.text("extra_settings").notNullable().defaultTo("{}");
    for (const setting of REALM_GROUP_SETTINGS) t.integer(`${setting}_id`).nullable();
  });

  await knex.schema.createTable("users", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    // email is the API email (what clients authenticate with); delivery_email the real one.
    t.string("email", 254).notNullable();
    t.string("delivery_email", 254).notNullable();
    t.string("full_name", 100).notNullable();
    t.integer("role").notNullable().defaultTo(400);
    t.boolean("is_bot").notNullable().defaultTo(false);
    t.integer("bot_type").nullable();
    t.integer("bot_owner_id").nullable().references("users.id");
    t.boolean("is_active").notNullable().defaultTo(true);
    t.boolean("is_deleted").notNullable().defaultTo(false);
    t.boolean("is_imported_stub").notNullable().defaultTo(false);
    t.boolean("is_mirror_dummy").notNullable().defaultTo(false);
    t.bigInteger("date_joined").notNullable();
    t.string("timezone", 40).notNullable().defaultTo("");
    t.string("avatar_source", 1).notNullable().defaultTo("G");
    t.integer("avatar_version").notNullable().defaultTo(1);
    // 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators.
    t.integer("email_address_visibility").notNullable().defaultTo(1);
    t.string("password_hash", 255).nullable();
    t.string("default_language", 20).notNullable().defaultTo("en");
    t.boolean("presence_enabled").notNullable().defaultTo(true);
    // Server-level permissions granted by the operator, not by roles.
    t.boolean("can_create_users").notNullable().defaultTo(false);
    t.boolean("can_change_user_emails").notNullable().defaultTo(false);
    t.boolean("can_forge_sender").notNullable().defaultTo(false);
    t.integer("default_sending_stream_id").nullable();
    t.integer("default_events_register_stream_id").nullable();
    t.boolean("default_all_public_streams").notNullable().defaultTo(false);
    t.bigInteger("last_active_message_id").nullable();
    // Display and notification settings: read whole, defaults filled in by code.
    t.text("settings").notNullable().defaultTo("{}");
    t.unique(["realm_id", "email"]);
    t.unique(["realm_id", "delivery_email"]);
    t.index(["realm_id", "is_active"]);
  });

  await knex.schema.createTable("api_keys", (t) => {
    t.increments("id");
    t.integer("user_id").notNullable().references("users.id").onDelete("CASCADE");
    // SHA-256 of the key: keys are 32 random alphanumerics, so a fast hash is enough.
    t.string("key_hash", 64).notNullable().unique();
    t.string("label", 100).notNullable().defaultTo("");
    t.bigInteger("date_created").notNullable();
    t.index(["user_id"]);
  });

  await knex.schema.createTable("user_groups", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    // null name = anonymous group holding an explicit group-setting value.
    t.string("name", 100).nullable();
    t.text("description").notNullable().defaultTo("");
    t.boolean("is_system_group").notNullable().defaultTo(false);
    t.boolean("deactivated").notNullable().defaultTo(false);
    t.bigInteger("date_created").nullable();
    t.integer("creator_id").nullable().references("users.id");
    for (const setting of USER_GROUP_SETTINGS) t.integer(`${setting}_id`).nullable();
    t.unique(["realm_id", "name"]);
  });

  await knex.schema.createTable("user_group_members", (t) => {
    t.integer("group_id").notNullable().references("user_groups.id").onDelete("CASCADE");
    t.integer("user_id").notNullable().references("users.id");
    t.primary(["group_id", "user_id"]);
    t.index(["user_id"]);
  });

  await knex.schema.createTable("user_group_subgroups", (t) => {
    t.integer("supergroup_id").notNullable().references("user_groups.id").onDelete("CASCADE");
    t.integer("subgroup_id").notNullable().references("user_groups.id").onDelete("CASCADE");
    t.primary(["supergroup_id", "subgroup_id"]);
    t.index(["subgroup_id"]);
  });

  // A recipient is a conversation: a user's personal DMs (type 1), a channel (2), or a
  // direct-message group (3). Messages point at recipients, as in Zulip.
  await knex.schema.createTable("recipients", (t) => {
    t.increments("id");
    t.integer("type").notNullable();
    t.integer("type_id").notNullable();
    t.unique(["type", "type_id"]);
  });

  await knex.schema.createTable("direct_message_groups", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    // Sorted, comma-separated user IDs of all participants.
    t.string("user_ids_key", 2000).notNullable();
    t.integer("group_size").notNullable();
    t.unique(["realm_id", "user_ids_key"]);
  });

  await knex.schema.createTable("channel_folders", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    t.string("name", 60).notNullable();
    t.text("description").notNullable().defaultTo("");
    t.text("rendered_description").notNullable().defaultTo("");
    t.bigInteger("date_created").nullable();
    t.integer("creator_id").nullable().references("users.id");
    t.integer("order").notNullable().defaultTo(0);
    t.boolean("is_archived").notNullable().defaultTo(false);
    t.index(["realm_id"]);
  });

  await knex.schema.createTable("streams", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    t.string("name", 60).notNullable();
    // Lower-cased name: channel names are unique without regard to case.
    t.string("name_key", 60).notNullable();
    t.text("description").notNullable().defaultTo("");
    t.text("rendered_description").notNullable().defaultTo("");
    t.bigInteger("date_created").notNullable();
    t.integer("creator_id").nullable().references("users.id");
    t.boolean("invite_only").notNullable().defaultTo(false);
    t.boolean("is_web_public").notNullable().defaultTo(false);
    t.boolean("history_public_to_subscribers").notNullable().defaultTo(true);
    // null = organization default; -1 = forever.
    t.integer("message_retention_days").nullable();
    t.integer("first_message_id").nullable();
    t.integer("folder_id").nullable().references("channel_folders.id");
    t.string("topics_policy", 40).notNullable().defaultTo("inherit");
    t.boolean("is_archived").notNullable().defaultTo(false);
    t.integer("recipient_id").nullable().references("recipients.id");
    for (const setting of CHANNEL_GROUP_SETTINGS) t.integer(`${setting}_id`).nullable();
    t.unique(["realm_id", "name_key"]);
  });

  await knex.schema.createTable("default_streams", (t) => {
    t.integer("realm_id").notNullable().references("realms.id");
    t.integer("stream_id").notNullable().references("streams.id").onDelete("CASCADE");
    t.primary(["realm_id", "stream_id"]);
  });

  await knex.schema.createTable("subscriptions", (t) => {
    t.increments("id");
    t.integer("user_id").notNullable().references("users.id");
    t.integer("stream_id").notNullable().references("streams.id");
    // Inactive rows remember past subscriptions (register's `unsubscribed`).
    t.boolean("active").notNullable().defaultTo(true);
    // Mirrors users.is_active, so subscriber lists need no join.
    t.boolean("is_user_active").notNullable().defaultTo(true);
    t.string("color", 10).notNullable().defaultTo("#c2c2c2");
    t.boolean("is_muted").notNullable().defaultTo(false);
    t.boolean("pin_to_top").notNullable().defaultTo(false);
    // null = inherit the user's default.
    t.boolean("desktop_notifications").nullable();
    t.boolean("audible_notifications").nullable();
    t.boolean("push_notifications").nullable();
    t.boolean("email_notifications").nullable();
    t.boolean("wildcard_mentions_notify").nullable();
    t.unique(["user_id", "stream_id"]);
    t.index(["stream_id", "active"]);
  });

  await knex.schema.createTable("messages", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    t.integer("sender_id").notNullable().references("users.id");
    t.integer("recipient_id").notNullable().references("recipients.id");
    // Denormalized from the recipient, for channel narrows without a join.
    t.integer("stream_id").nullable();
    t.string("topic", 60).notNullable().defaultTo("");
    // Lower-cased topic: topic matching ignores case.
    t.string("topic_key", 60).notNullable().defaultTo("");
    t.text("content").notNullable();
    t.text("rendered_content").notNullable();
    t.integer("rendered_content_version").notNullable().defaultTo(1);
    t.bigInteger("date_sent").notNullable();
    t.string("sending_client", 100).notNullable().defaultTo("");
    t.bigInteger("last_edit_time").nullable();
    t.bigInteger("last_moved_time").nullable();
    t.text("edit_history").nullable();
    t.boolean("has_link").notNullable().defaultTo(false);
    t.boolean("has_image").notNullable().defaultTo(false);
    t.boolean("has_attachment").notNullable().defaultTo(false);
    t.boolean("is_me_message").notNullable().defaultTo(false);
    t.index(["stream_id", "topic_key", "id"]);
    t.index(["stream_id", "id"]);
    t.index(["recipient_id", "id"]);
    t.index(["sender_id", "id"]);
    t.index(["realm_id", "id"]);
  });

  // Per-user message rows; `flags` is a bitfield (see src/lib/message-flags.ts).
  await knex.schema.createTable("user_messages", (t) => {
    t.integer("user_id").notNullable().references("users.id");
    t.integer("message_id").notNullable().references("messages.id").onDelete("CASCADE");
    t.integer("flags").notNullable().defaultTo(0);
    t.primary(["user_id", "message_id"]);
    t.index(["message_id"]);
  });
  // Partial indexes for the flag narrows (is:unread, is:starred, is:mentioned, is:dm).
  for (const [name, predicate] of [
    ["user_messages_unread", "(flags & 1) = 0"],
    ["user_messages_starred", "(flags & 2) <> 0"],
    ["user_messages_mentioned", "(flags & 56) <> 0"],
    ["user_messages_private", "(flags & 2048) <> 0"],
  ] as const) {
    await knex.raw(`CREATE INDEX ${name} ON user_messages (user_id, message_id) WHERE ${predicate}`);
  }

  await knex.schema.createTable("reactions", (t) => {
    t.increments("id");
    t.integer("message_id").notNullable().references("messages.id").onDelete("CASCADE");
    t.integer("user_id").notNullable().references("users.id");
    t.string("emoji_name", 100).notNullable();
    t.string("emoji_code", 100).notNullable();
    t.string("reaction_type", 30).notNullable();
    t.unique(["message_id", "user_id", "reaction_type", "emoji_code"]);
  });

  await knex.schema.createTable("realm_emoji", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    t.string("name", 60).notNullable();
    t.integer("author_id").nullable().references("users.id");
    t.string("file_name", 255).nullable();
    t.boolean("is_animated").notNullable().defaultTo(false);
    t.boolean("deactivated").notNullable().defaultTo(false);
    t.index(["realm_id", "name"]);
  });

  await knex.schema.createTable("custom_profile_fields", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    t.string("name", 40).notNullable();
    t.string("hint", 80).notNullable().defaultTo("");
    t.integer("field_type").notNullable();
    t.text("field_data").notNullable().defaultTo("");
    t.integer("order").notNullable().defaultTo(0);
    t.boolean("display_in_profile_summary").notNullable().defaultTo(false);
    t.boolean("required").notNullable().defaultTo(false);
    t.boolean("editable_by_user").notNullable().defaultTo(true);
    t.boolean("use_for_user_matching").notNullable().defaultTo(false);
    t.unique(["realm_id", "name"]);
  });

  await knex.schema.createTable("custom_profile_field_values", (t) => {
    t.integer("user_id").notNullable().references("users.id");
    t.integer("field_id").notNullable().references("custom_profile_fields.id").onDelete("CASCADE");
    t.text("value").notNullable();
    t.text("rendered_value").nullable();
    t.primary(["user_id", "field_id"]);
    t.index(["field_id"]);
  });

  await knex.schema.createTable("user_status", (t) => {
    t.integer("user_id").primary().references("users.id");
    t.bigInteger("timestamp").notNullable();
    t.string("status_text", 255).notNullable().defaultTo("");
    t.string("emoji_name", 100).notNullable().defaultTo("");
    t.string("emoji_code", 100).notNullable().defaultTo("");
    t.string("reaction_type", 30).notNullable().defaultTo("unicode_emoji");
  });

  await knex.schema.createTable("user_presence", (t) => {
    t.integer("user_id").primary().references("users.id");
    t.bigInteger("last_connected_time").nullable();
    t.bigInteger("last_active_time").nullable();
  });

  await knex.schema.createTable("navigation_views", (t) => {
    t.increments("id");
    t.integer("user_id").notNullable().references("users.id");
    t.string("fragment", 255).notNullable();
    t.boolean("is_pinned").notNullable();
    t.string("name", 100).nullable();
    t.unique(["user_id", "fragment"]);
  });

  await knex.schema.createTable("saved_snippets", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    t.integer("user_id").notNullable().references("users.id");
    t.string("title", 60).notNullable();
    t.text("content").notNullable();
    t.bigInteger("date_created").notNullable();
    t.index(["user_id"]);
  });

  await knex.schema.createTable("push_devices", (t) => {
    t.increments("id");
    t.integer("user_id").notNullable().references("users.id");
    // 1 = APNs, 2 = FCM/GCM.
    t.integer("kind").notNullable();
    t.string("token", 4096).notNullable();
    t.string("ios_app_id", 255).nullable();
    t.bigInteger("last_updated").notNullable();
    t.unique(["user_id", "kind", "token"]);
  });

  await knex.schema.createTable("bot_services", (t) => {
    t.increments("id");
    t.integer("bot_user_id").notNullable().references("users.id");
    t.string("name", 100).notNullable();
    t.string("base_url", 2000).notNullable();
    t.string("token", 64).notNullable();
    // 1 = Zulip-format payload, 2 = Slack-compatible.
    t.integer("interface").notNullable().defaultTo(1);
    t.index(["bot_user_id"]);
  });

  await knex.schema.createTable("bot_storage", (t) => {
    t.integer("bot_user_id").notNullable().references("users.id");
    t.string("key", 1000).notNullable();
    t.text("value").notNullable();
    t.primary(["bot_user_id", "key"]);
  });

  await knex.schema.createTable("user_topics", (t) => {
    insertionOrder(knex, t);
    t.integer("user_id").notNullable().references("users.id");
    t.integer("stream_id").notNullable().references("streams.id");
    t.string("topic_name", 60).notNullable();
    t.string("topic_key", 60).notNullable();
    // 0 inherit, 1 muted, 2 unmuted, 3 followed.
    t.integer("visibility_policy").notNullable();
    t.bigInteger("last_updated").notNullable();
    t.primary(["user_id", "stream_id", "topic_key"]);
  });

  await knex.schema.createTable("muted_users", (t) => {
    insertionOrder(knex, t);
    t.integer("user_id").notNullable().references("users.id");
    t.integer("muted_user_id").notNullable().references("users.id");
    t.bigInteger("date_muted").notNullable();
    t.primary(["user_id", "muted_user_id"]);
  });

  await knex.schema.createTable("alert_words", (t) => {
    insertionOrder(knex, t);
    t.integer("user_id").notNullable().references("users.id");
    t.string("word", 100).notNullable();
    t.primary(["user_id", "word"]);
  });

  await knex.schema.createTable("linkifiers", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    t.text("pattern").notNullable();
    t.text("url_template").notNullable();
    t.integer("order").notNullable().defaultTo(0);
  });

  // Event queues saved on graceful shutdown and restored on the next start.
  await knex.schema.createTable("event_queue_snapshots", (t) => {
    t.string("queue_id", 64).primary();
    t.integer("user_id").notNullable();
    t.text("data").notNullable();
    t.bigInteger("saved_at").notNullable();
  });
}

export function down(): Promise<void> {
  // Forward-only: reverting the initial schema would destroy every realm.
  return Promise.reject(new Error("The initial migration cannot be reverted."));
}
