import type { DbBigInt, DbBool } from "./rows.js";

/** A channel (table `streams`, Zulip's old name). */
export interface ChannelRow {
  id: number;
  realm_id: number;
  name: string;
  /** Lower-cased name: names are unique without regard to case. */
  name_key: string;
  description: string;
  rendered_description: string;
  date_created: DbBigInt;
  creator_id: number | null;
  invite_only: DbBool;
  is_web_public: DbBool;
  history_public_to_subscribers: DbBool;
  message_retention_days: number | null;
  first_message_id: number | null;
  folder_id: number | null;
  topics_policy: string;
  is_archived: DbBool;
  recipient_id: number | null;
  can_add_subscribers_group_id: number;
  can_administer_channel_group_id: number;
  can_create_topic_group_id: number;
  can_delete_any_message_group_id: number;
  can_delete_own_message_group_id: number;
  can_move_messages_out_of_channel_group_id: number;
  can_move_messages_within_channel_group_id: number;
  can_remove_subscribers_group_id: number;
  can_resolve_topics_group_id: number;
  can_send_message_group_id: number;
  can_subscribe_group_id: number;
}

/** A user's subscription to a channel; inactive rows remember past subscriptions. */
export interface SubscriptionRow {
  id: number;
  user_id: number;
  stream_id: number;
  active: DbBool;
  is_user_active: DbBool;
  color: string;
  is_muted: DbBool;
  pin_to_top: DbBool;
  desktop_notifications: DbBool | null;
  audible_notifications: DbBool | null;
  push_notifications: DbBool | null;
  email_notifications: DbBool | null;
  wildcard_mentions_notify: DbBool | null;
}

export interface ChannelFolderRow {
  id: number;
  realm_id: number;
  name: string;
  description: string;
  rendered_description: string;
  date_created: DbBigInt | null;
  creator_id: number | null;
  order: number;
  is_archived: DbBool;
}

/** Recipient types (table `recipients`), as Zulip's Recipient model. */
export const RECIPIENT_TYPE = { PERSONAL: 1, STREAM: 2, DIRECT_MESSAGE_GROUP: 3 } as const;

/** Zulip's topics_policy values. */
export const TOPICS_POLICIES = [
  "inherit",
  "allow_empty_topic",
  "disable_empty_topic",
  "empty_topic_only",
] as const;
export type TopicsPolicy = (typeof TOPICS_POLICIES)[number];
