/**
 * What the web client reads from the API. Events and the records the server types
 * precisely come from the server's own definitions (type-only imports: nothing of the
 * server is bundled); records the server keeps as loose JSON are spelled out here with the
 * fields the client reads, as Zulip's API documents them.
 */
import type {
  DeleteMessageEvent,
  ReactionEvent,
  StreamEvent,
  SubscriptionEvent,
  TypingEvent,
  UpdateMessageEvent,
  UpdateMessageFlagsEvent,
  UserSettingsEvent,
  UserStatusEvent,
  UserTopicEvent,
  RealmEmojiEvent,
  DraftsEvent,
  MutedUsersEvent,
  UserGroupWireEvent,
  VisibilityPolicy,
  WireCustomEmoji,
} from "../../wire/events.js";
import type { WireDraft, WireEmoji, WireMessage } from "../../wire/records.js";

export type { VisibilityPolicy, WireCustomEmoji, WireDraft, WireEmoji };

export interface Reaction extends WireEmoji {
  user_id: number;
}

/**
 * A message as GET /messages and message events give it (apply_markdown: `content` is the
 * HTML; the server's rendered_content is not sent).
 */
export type Message = Omit<WireMessage, "reactions" | "submessages" | "rendered_content"> & {
  reactions: Reaction[];
  submessages: unknown[];
  flags: string[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
};

export interface User {
  user_id: number;
  email: string;
  delivery_email?: string | null;
  full_name: string;
  avatar_url: string | null;
  is_active: boolean;
  is_bot: boolean;
  is_guest: boolean;
  is_admin: boolean;
  is_owner: boolean;
  role: number;
  timezone: string;
  date_joined: string;
  bot_type?: number | null;
  profile_data?: Record<string, { value: string; rendered_value?: string }>;
}

export interface Channel {
  stream_id: number;
  name: string;
  description: string;
  rendered_description: string;
  invite_only: boolean;
  is_web_public: boolean;
  is_archived?: boolean;
  history_public_to_subscribers: boolean;
  date_created: number;
  creator_id: number | null;
  folder_id?: number | null;
  subscriber_count?: number;
}

export interface Subscription extends Channel {
  color: string;
  pin_to_top: boolean;
  is_muted: boolean;
  /** Zulip's older name for not is_muted, still in register and events. */
  in_home_view?: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
  subscribers?: number[];
}

export interface UserGroup {
  id: number;
  name: string;
  description: string;
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
  deactivated?: boolean;
}

export interface UnreadMsgs {
  count: number;
  pms: Array<{ other_user_id: number; unread_message_ids: number[] }>;
  streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
  huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>;
  mentions: number[];
  old_unreads_missing: boolean;
}

export interface UserSettings {
  enter_sends: boolean;
  twenty_four_hour_time: boolean;
  color_scheme: number;
  send_private_typing_notifications: boolean;
  send_stream_typing_notifications: boolean;
  enable_desktop_notifications: boolean;
  enable_sounds: boolean;
  enable_stream_desktop_notifications: boolean;
  pm_content_in_desktop_notifications: boolean;
  wildcard_mentions_notify: boolean;
  enable_followed_topic_desktop_notifications: boolean;
  enable_drafts_synchronization: boolean;
  display_emoji_reaction_users: boolean;
  emojiset: string;
  left_side_userlist: boolean;
  default_language: string;
  web_home_view: string;
  [key: string]: unknown;
}

export interface UserStatus {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
  away?: boolean;
}

export interface Presence {
  active_timestamp: number;
  idle_timestamp: number;
}

export interface UserTopic {
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: VisibilityPolicy;
}

/** POST /register's answer, as far as the web client reads it. */
export interface InitialState {
  queue_id: string;
  last_event_id: number;
  zulip_feature_level: number;
  user_id: number;
  email: string;
  full_name: string;
  is_admin: boolean;
  is_owner: boolean;
  is_moderator: boolean;
  is_guest: boolean;
  avatar_url: string | null;
  realm_name: string;
  realm_description: string;
  realm_icon_url: string;
  realm_users: User[];
  realm_non_active_users: User[];
  cross_realm_bots: User[];
  realm_user_groups: UserGroup[];
  subscriptions: Subscription[];
  unsubscribed: Subscription[];
  never_subscribed: Channel[];
  streams?: Channel[];
  unread_msgs: UnreadMsgs;
  user_settings: UserSettings;
  user_topics: UserTopic[];
  muted_users: Array<{ id: number; timestamp: number }>;
  presences: Record<string, Presence>;
  server_timestamp: number;
  presence_last_update_id?: number;
  user_status: Record<string, UserStatus>;
  realm_emoji: Record<string, WireCustomEmoji>;
  drafts: WireDraft[];
  starred_messages: number[];
  max_message_id: number;
  recent_private_conversations: Array<{ max_message_id: number; user_ids: number[] }>;
  realm_allow_message_editing: boolean;
  realm_message_content_edit_limit_seconds: number | null;
  realm_message_content_delete_limit_seconds: number | null;
  realm_move_messages_within_stream_limit_seconds?: number | null;
  realm_enable_read_receipts: boolean;
  max_file_upload_size_mib: number;
  server_emoji_data_url?: string;
  realm_empty_topic_display_name?: string;
  realm_mandatory_topics?: boolean;
  realm_email_changes_disabled?: boolean;
  realm_topics_policy?: string;
  server_typing_started_wait_period_milliseconds: number;
  server_typing_stopped_wait_period_milliseconds: number;
  server_typing_started_expiry_period_milliseconds: number;
  [key: string]: unknown;
}

/** An event as GET /events delivers it (the server's shapes, with the queue's `id`). */
export type ServerEvent = { id: number } & (
  | { type: "heartbeat" }
  | { type: "message"; message: Message; flags: string[]; local_message_id?: string }
  | (UpdateMessageEvent & { /** The recipient's flags for message_id, after the change. */ flags?: string[] })
  | DeleteMessageEvent
  | UpdateMessageFlagsEvent
  | ReactionEvent
  | TypingEvent
  | StreamEvent
  | SubscriptionEvent
  | UserSettingsEvent
  | UserStatusEvent
  | UserTopicEvent
  | RealmEmojiEvent
  | DraftsEvent
  | MutedUsersEvent
  | { type: "presence"; presences: Record<string, Presence> }
  | { type: "realm_user"; op: "add"; person: User }
  | {
      type: "realm_user";
      op: "update";
      person: Partial<User> & { user_id: number } & Record<string, unknown>;
    }
  | { type: "realm_user"; op: "remove"; person: { user_id: number; full_name: string } }
  | { type: "realm"; op: "update"; property: string; value: unknown }
  | { type: "realm"; op: "update_dict"; property: string; data: Record<string, unknown> }
  | UserGroupWireEvent
  | { type: "restart" | "web_reload_client"; [key: string]: unknown }
  | { type: "invites_changed" }
  | { type: "other"; [key: string]: unknown }
);
