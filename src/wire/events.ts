import type {
  MessageEventHints,
  WireAttachment,
  WireBot,
  WireBotService,
  WireChannel,
  WireChannelFolder,
  WireDraft,
  WireEmoji,
  WireLegacyClientPresence,
  WireMessage,
  WireModernPresence,
  WireNavigationView,
  WireProfileField,
  WireRecord,
  WireReminder,
  WireSavedSnippet,
  WireScheduledMessage,
  WireSubscription,
  WireUnreadDetails,
  WireUserGroup,
} from "./records.js";

/**
 * Every event actions produce, in Zulip's wire shape ({type, op?, ...}) before the
 * per-queue `id`. Presenters build each one (presenters/events/); events/flavours.ts
 * decides, per type, how it is reshaped for each queue. Fields starting with `_` (and
 * the user group routing) are hints for the flavour, never delivered. A new member
 * here fails to compile until the flavour table decides its presentation.
 */
export type ChatEvent =
  | MessageEvent
  | UpdateMessageEvent
  | DeleteMessageEvent
  | UpdateMessageFlagsEvent
  | ReactionEvent
  | SubmessageEvent
  | TypingEvent
  | TypingEditMessageEvent
  | StreamEvent
  | SubscriptionEvent
  | DefaultStreamsEvent
  | ChannelFolderEvent
  | RealmEvent
  | RealmUserEvent
  | RealmBotEvent
  | UserGroupEvent
  | UserSettingsEvent
  | RealmUserSettingsDefaultsEvent
  | UserStatusEvent
  | CustomProfileFieldsEvent
  | NavigationViewEvent
  | SavedSnippetsEvent
  | DraftsEvent
  | ScheduledMessagesEvent
  | RemindersEvent
  | DeviceEvent
  | PresenceEvent
  | UserTopicEvent
  | MutedTopicsEvent
  | MutedUsersEvent
  | AlertWordsEvent
  | AttachmentEvent
  | RealmEmojiEvent
  | RealmLinkifiersEvent
  | RealmPlaygroundsEvent
  | RealmExportEvent
  | RealmExportConsentEvent
  | InvitesChangedEvent;

export type ChatEventType = ChatEvent["type"];

/** The member of the union with this type. */
export type EventOf<T extends ChatEventType> = Extract<ChatEvent, { type: T }>;

/**
 * An event as a queue holds and delivers it: a ChatEvent reshaped by its flavour, or
 * one only flavours and queues make (heartbeat, update_display_settings and
 * update_global_notifications, the legacy one-message delete_message). Plain JSON, as
 * GET /events sends it.
 */
export type WireEvent = { readonly type: string; readonly [key: string]: unknown };

// ---- messages ----

/**
 * The realm's name for the empty topic, on events that name an empty topic: clients
 * without the empty_topic_name capability get it instead of "". A hint, never sent.
 */
export type EmptyTopicHint = { _emptyTopicName?: string };

/** A new message. Per recipient: {flags}. */
export type MessageEvent = { type: "message"; message: WireMessage; _hints: MessageEventHints };

export type PropagateMode = "change_one" | "change_later" | "change_all";

/** An edit (content, topic) or a move. Per recipient: {flags}. */
export type UpdateMessageEvent = {
  type: "update_message";
  /** null for a re-rendering the server made (rendering_only: thumbnails). */
  user_id: number | null;
  edit_timestamp: number;
  message_id: number;
  message_ids: number[];
  rendering_only: boolean;
  stream_name?: string;
  stream_id?: number;
  new_stream_id?: number;
  propagate_mode?: PropagateMode;
  orig_subject?: string;
  subject?: string;
  topic_links?: Array<{ text: string; url: string }>;
  orig_content?: string;
  orig_rendered_content?: string;
  content?: string;
  rendered_content?: string;
  is_me_message?: boolean;
} & EmptyTopicHint;

/** Messages of one conversation deleted (or moved out of the recipient's sight). */
export type DeleteMessageEvent =
  | ({
      type: "delete_message";
      message_ids: number[];
      message_type: "stream";
      stream_id: number;
      topic: string;
    } & EmptyTopicHint)
  | { type: "delete_message"; message_ids: number[]; message_type: "private" };

export type UpdateMessageFlagsEvent = {
  type: "update_message_flags";
  op: "add" | "remove";
  operation: "add" | "remove";
  flag: string;
  messages: number[];
  all: boolean;
  /** Removing `read`: what the client needs to count the messages unread again. */
  message_details?: Record<string, WireUnreadDetails>;
} & EmptyTopicHint;

export type ReactionEvent = {
  type: "reaction";
  op: "add" | "remove";
  user_id: number;
  user: { user_id: number; email: string; full_name: string };
  message_id: number;
} & WireEmoji;

/** Data a widget attached to a message (a poll vote, a to-do task). */
export type SubmessageEvent = {
  type: "submessage";
  msg_type: string;
  message_id: number;
  submessage_id: number;
  sender_id: number;
  content: string;
};

export type TypingUser = { user_id: number; email: string };

export type TypingEvent =
  | ({
      type: "typing";
      message_type: "stream";
      op: "start" | "stop";
      sender: TypingUser;
      stream_id: number;
      topic: string;
    } & EmptyTopicHint)
  | {
      type: "typing";
      message_type: "direct";
      op: "start" | "stop";
      sender: TypingUser;
      recipients: TypingUser[];
    };

/** Where an edited message lives, as typing_edit_message says it. */
export type TypingEditRecipient =
  { type: "channel"; channel_id: number; topic: string } | { type: "direct"; user_ids: number[] };

/** Someone started or stopped editing a message's content. */
export type TypingEditMessageEvent = {
  type: "typing_edit_message";
  op: "start" | "stop";
  sender_id: number;
  message_id: number;
  recipient: TypingEditRecipient;
} & EmptyTopicHint;

// ---- channels ----

/** Fields some stream updates carry besides property and value. */
export type StreamUpdateExtra = {
  rendered_description?: string;
  history_public_to_subscribers?: boolean;
  is_web_public?: boolean;
};

export type StreamUpdateEvent = {
  type: "stream";
  op: "update";
  stream_id: number;
  name: string;
  property: string;
  value: unknown;
  /** Unarchiving: the channel, created anew for clients without archived_channels. */
  _channel?: WireChannel;
} & StreamUpdateExtra;

export type StreamEvent =
  | { type: "stream"; op: "create"; streams: WireChannel[] }
  | { type: "stream"; op: "delete"; streams: Array<{ stream_id: number }>; stream_ids: number[] }
  | StreamUpdateEvent;

export type SubscriptionEvent =
  | { type: "subscription"; op: "add"; subscriptions: WireSubscription[] }
  | { type: "subscription"; op: "remove"; subscriptions: Array<{ name: string; stream_id: number }> }
  | { type: "subscription"; op: "peer_add" | "peer_remove"; stream_ids: number[]; user_ids: number[] }
  | { type: "subscription"; op: "update"; property: string; value: unknown; stream_id: number };

export type DefaultStreamsEvent = { type: "default_streams"; default_streams: number[] };

export type ChannelFolderEvent =
  | { type: "channel_folder"; op: "add"; channel_folder: WireChannelFolder }
  | { type: "channel_folder"; op: "update"; channel_folder_id: number; data: Partial<WireChannelFolder> }
  | { type: "channel_folder"; op: "reorder"; order: number[] };

// ---- realm, users and groups ----

/**
 * A change of the organization's settings, to every active user: one setting as
 * `update` (property and value), or, for the settings Zulip groups that way (message
 * editing, topics policy, group permissions), `update_dict` with `property: "default"`.
 */
export type RealmEvent =
  | { type: "realm"; op: "update"; property: string; value: RealmSettingValue }
  | { type: "realm"; op: "update_dict"; property: "default"; data: WireRecord };

/** A realm setting's value in a `realm` update event. */
export type RealmSettingValue = string | number | boolean | null;

/** One changed attribute of a user (realm_user update's `person`). */
export type PersonUpdate = { user_id: number } & (
  | { role: number }
  | { full_name: string }
  | { delivery_email: string | null }
  | { email: string; timezone: string }
  | { new_email: string }
  | { is_active: boolean }
  | { bot_owner_id: number }
  | {
      avatar_source: string;
      avatar_url: string | null;
      avatar_url_medium: string | null;
      avatar_version: number;
    }
  | { custom_profile_field: { id: number; value: string | null; rendered_value?: string } }
);

export type RealmUserEvent =
  /** A new user; `person` is per recipient (what each may see of them). */
  { type: "realm_user"; op: "add" } | { type: "realm_user"; op: "update"; person: PersonUpdate };

/** One changed attribute of a bot (realm_bot update's `bot`). */
export type BotUpdate = { user_id: number } & (
  | { full_name: string }
  | { is_active: boolean }
  | { owner_id: number }
  | { default_sending_stream: string | null }
  | { default_events_register_stream: string | null }
  | { default_all_public_streams: boolean }
  | { services: WireBotService[] }
);

/**
 * A bot's configuration, for those who administer it (register's realm_bots): a new
 * bot (or one newly owned), a change, and `delete` for a previous owner. Zulip's
 * `remove` (a deactivated bot) is no longer sent since feature level 222: deactivation
 * is an update of is_active.
 */
export type RealmBotEvent =
  | { type: "realm_bot"; op: "add"; bot: WireBot }
  | { type: "realm_bot"; op: "update"; bot: BotUpdate }
  | { type: "realm_bot"; op: "delete"; bot: { user_id: number } };

/** A user_group event as clients get it. */
export type UserGroupWireEvent =
  | { type: "user_group"; op: "add"; group: WireUserGroup }
  | { type: "user_group"; op: "update"; group_id: number; data: WireRecord }
  | { type: "user_group"; op: "add_members" | "remove_members"; group_id: number; user_ids: number[] }
  | {
      type: "user_group";
      op: "add_subgroups" | "remove_subgroups";
      group_id: number;
      direct_subgroup_ids: number[];
    }
  | { type: "user_group"; op: "remove"; group_id: number };

/**
 * Clients without include_deactivated_groups do not know deactivated groups: they get
 * `legacy` instead (remove on deactivation, a full add on reactivation), and nothing
 * at all about a group while it is deactivated.
 */
export type UserGroupRouting = {
  /** The event concerns a deactivated group. */
  groupDeactivated?: boolean;
  /** What clients without include_deactivated_groups get instead. */
  legacy?: UserGroupWireEvent;
};

export type UserGroupEvent = UserGroupWireEvent & { chatd_user_group_routing?: UserGroupRouting };

/**
 * A change of the recipient's own setting. The hints tell the flavour which legacy event
 * (update_display_settings / update_global_notifications) clients without the
 * user_settings_object capability also get, and the user's email it names.
 */
export type UserSettingsEvent = {
  type: "user_settings";
  op: "update";
  property: string;
  value: unknown;
  /** Only for default_language. */
  language_name?: string;
  _legacy: { group: "display" | "notification"; user: string } | null;
};

/** A change of the settings new users get, to everyone. */
export type RealmUserSettingsDefaultsEvent = {
  type: "realm_user_settings_defaults";
  op: "update";
  property: string;
  value: unknown;
};

export type UserStatusEvent = {
  type: "user_status";
  user_id: number;
  away?: boolean;
  status_text?: string;
} & Partial<WireEmoji>;

export type CustomProfileFieldsEvent = { type: "custom_profile_fields"; fields: WireProfileField[] };

// ---- a user's own data ----

export type NavigationViewEvent =
  | { type: "navigation_view"; op: "add"; navigation_view: WireNavigationView }
  | {
      type: "navigation_view";
      op: "update";
      fragment: string;
      data: { name?: string; is_pinned?: boolean };
    }
  | { type: "navigation_view"; op: "remove"; fragment: string };

export type SavedSnippetsEvent =
  | { type: "saved_snippets"; op: "add" | "update"; saved_snippet: WireSavedSnippet }
  | { type: "saved_snippets"; op: "remove"; saved_snippet_id: number };

export type DraftsEvent =
  | { type: "drafts"; op: "add"; drafts: WireDraft[] }
  | { type: "drafts"; op: "update"; draft: WireDraft }
  | { type: "drafts"; op: "remove"; draft_id: number };

export type ScheduledMessagesEvent =
  | { type: "scheduled_messages"; op: "add"; scheduled_messages: WireScheduledMessage[] }
  | { type: "scheduled_messages"; op: "update"; scheduled_message: WireScheduledMessage }
  | { type: "scheduled_messages"; op: "remove"; scheduled_message_id: number };

/** Reminders are never edited: added, then removed when delivered or deleted. */
export type RemindersEvent =
  | { type: "reminders"; op: "add"; reminders: WireReminder[] }
  | { type: "reminders"; op: "remove"; reminder_id: number };

/**
 * A file the user uploaded was added, changed (the messages linking it) or removed; with
 * the organization's total upload size. Sent to the uploader only.
 */
export type AttachmentEvent =
  | { type: "attachment"; op: "add" | "update"; attachment: WireAttachment; upload_space_used: number }
  | { type: "attachment"; op: "remove"; attachment: { id: number }; upload_space_used: number };

/** A mobile device of the user registered or removed (no push fields: chatd has no push). */
export type DeviceEvent = { type: "device"; op: "add" | "remove"; device_id: number };

// ---- presence ----

/**
 * A user reported presence for the first time, came back online, or turned
 * presence_enabled on or off. Built in the legacy shape; `_modern` is the same presence
 * in the modern format, for the flavour.
 */
export type PresenceEvent = {
  type: "presence";
  user_id: number;
  email: string;
  server_timestamp: number;
  presence: { website: WireLegacyClientPresence };
  _modern: WireModernPresence;
};

/** 0 none (inherit), 1 muted, 2 unmuted, 3 followed. */
export type VisibilityPolicy = 0 | 1 | 2 | 3;

/**
 * A user's visibility policy for a topic changed. `_empty_topic_name`, set when the topic
 * is "", is what clients without the empty_topic_name capability see instead.
 */
export type UserTopicEvent = {
  type: "user_topic";
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: VisibilityPolicy;
  _empty_topic_name?: string;
};

/** The legacy whole list of muted topics: [channel name, topic, timestamp]. */
export type MutedTopicsEvent = {
  type: "muted_topics";
  muted_topics: Array<[string, string, number]>;
  _empty_topic_name?: string;
};

export type MutedUsersEvent = { type: "muted_users"; muted_users: Array<{ id: number; timestamp: number }> };

export type AlertWordsEvent = { type: "alert_words"; alert_words: string[] };

/** Every linkifier of the realm, in order (only to clients with linkifier_url_template). */
export type RealmLinkifiersEvent = {
  type: "realm_linkifiers";
  realm_linkifiers: Array<{ pattern: string; url_template: string; id: number }>;
};

/** Every code playground of the realm. */
export type RealmPlaygroundsEvent = {
  type: "realm_playgrounds";
  realm_playgrounds: Array<{ id: number; name: string; pygments_language: string; url_template: string }>;
};

/** Zulip's RealmExport as GET /export/realm and realm_export events carry it. */
export interface WireRealmExport {
  id: number;
  acting_user_id: number | null;
  export_time: number;
  deleted_timestamp: number | null;
  failed_timestamp: number | null;
  export_url: string | null;
  pending: boolean;
  export_type: number;
}

/** The organization's data exports, every one, after one started, finished, failed or was deleted. */
export type RealmExportEvent = { type: "realm_export"; exports: WireRealmExport[] };

/** A member turned allow_private_data_export on or off (to administrators). */
export type RealmExportConsentEvent = { type: "realm_export_consent"; user_id: number; consented: boolean };

/** The realm's invitations changed: clients that list them fetch GET /invites again. */
export type InvitesChangedEvent = { type: "invites_changed" };

/** A custom emoji as register and realm_emoji events carry it (Zulip's EmojiInfo). */
export interface WireCustomEmoji {
  id: string;
  name: string;
  source_url: string;
  deactivated: boolean;
  author_id: number | null;
  still_url: string | null;
}

/**
 * realm_emoji: `add` and `edit` for clients with individual_emoji_changes; the others
 * get the legacy `update` with every emoji, which the event carries for them
 * (realm_emoji, stripped by the flavour).
 */
export type RealmEmojiEvent =
  | { type: "realm_emoji"; op: "update"; realm_emoji: Record<string, WireCustomEmoji> }
  | {
      type: "realm_emoji";
      op: "add";
      emoji: WireCustomEmoji;
      realm_emoji: Record<string, WireCustomEmoji>;
    }
  | {
      type: "realm_emoji";
      op: "edit";
      emoji_id: string;
      data: { deactivated: boolean };
      realm_emoji: Record<string, WireCustomEmoji>;
    };

/**
 * Who receives an event: user IDs, or per-user extra data merged into the event
 * (message events carry each recipient's own flags).
 */
export type EventRecipients = Iterable<number> | ReadonlyMap<number, Record<string, unknown>>;

/** The user IDs an event goes to, whichever form its recipients take. */
export function recipientUserIds(recipients: EventRecipients): Iterable<number> {
  return recipients instanceof Map
    ? (recipients as ReadonlyMap<number, unknown>).keys()
    : (recipients as Iterable<number>);
}

/** What a client asked for when it registered; stored with its queue. */
export interface QueueOptions {
  /** null = all event types. */
  readonly eventTypes: readonly string[] | null;
  readonly applyMarkdown: boolean;
  readonly clientGravatar: boolean;
  readonly slimPresence: boolean;
  readonly allPublicStreams: boolean;
  /** [operator, operand] pairs filtering message events. */
  readonly narrow: ReadonlyArray<readonly [string, string]>;
  readonly capabilities: Readonly<Record<string, boolean>>;
  readonly idleTimeoutSecs: number;
  readonly clientName: string;
  /** The web session that registered it (/json/register): it ends with that session. */
  readonly sessionId?: number;
}

export const CLIENT_CAPABILITIES = [
  "notification_settings_null",
  "bulk_message_deletion",
  "user_avatar_url_field_optional",
  "stream_typing_notifications",
  "user_settings_object",
  "linkifier_url_template",
  "user_list_incomplete",
  "include_deactivated_groups",
  "archived_channels",
  "empty_topic_name",
  "simplified_presence_events",
  "individual_emoji_changes",
] as const;

export type ClientCapability = (typeof CLIENT_CAPABILITIES)[number];

export const hasCapability = (options: QueueOptions, capability: ClientCapability) =>
  options.capabilities[capability] === true;

export interface FlavourContext {
  readonly userId: number;
  /** The queue the event is going to. */
  readonly queueId: string;
  readonly options: QueueOptions;
  /** Per-recipient data the sender attached (e.g. a message's flags for this user). */
  readonly extra: Record<string, unknown> | undefined;
}

/**
 * Reshapes an event of one type for one queue (client capabilities, Markdown or not,
 * per-user fields, hints removed). Returns the event(s) this queue gets, or null for none.
 */
export type Flavour<T extends ChatEventType = ChatEventType> = (
  event: EventOf<T>,
  ctx: FlavourContext,
) => WireEvent | WireEvent[] | null;
