import type { RealmRow } from "../db/rows.js";

/** Limits a client needs to know (/register and /server_settings), enforced by the server. */
export const LIMITS = {
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
  max_channel_folder_name_length: 60,
  max_channel_folder_description_length: 1024,
  max_topic_length: 60,
  max_message_length: 10000,
  max_reminder_note_length: 1000,
  max_bulk_new_subscription_messages: 100,
} as const;

/** Zulip's Realm.MAX_REALM_NAME_LENGTH and MAX_REALM_DESCRIPTION_LENGTH. */
export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;
/** Zulip's Realm.MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH. */
export const MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH = 8000;

export const DEFAULT_EMPTY_TOPIC_DISPLAY_NAME = "general chat";

export const emptyTopicDisplayName = (realm: RealmRow) =>
  realm.empty_topic_display_name ?? DEFAULT_EMPTY_TOPIC_DISPLAY_NAME;
