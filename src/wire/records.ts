/**
 * The records events carry, as presenters build them (Zulip's names, snake_case). A base
 * leaf, so that wire/events.ts can describe every event without importing a layer.
 * Records whose shape is wide and decided by their presenter alone (a channel, a user)
 * are typed as open dictionaries; the ones an event's flavour reads are spelled out.
 */

/** A dictionary presented by a presenter (see the alias's presenter for its fields). */
export type WireRecord = Record<string, unknown>;

/** presentChannel's stream dictionary (presenters/channels.ts). */
export type WireChannel = WireRecord;
/** presentSubscription's subscription dictionary (presenters/channels.ts). */
export type WireSubscription = WireRecord;
/** presentUser's user dictionary (presenters/users.ts). */
export type WireUser = WireRecord;
/** presentUserGroup's group dictionary (presenters/user-groups.ts). */
export type WireUserGroup = WireRecord;
/** presentField's custom profile field (presenters/custom-profile-fields.ts). */
export type WireProfileField = WireRecord;
/** unreadMessageDetails' record for one message (lib/unread.ts). */
export type WireUnreadDetails = WireRecord;

/** One participant of a direct message, as display_recipient lists them. */
export type DisplayRecipientUser = {
  id: number;
  email: string;
  full_name: string;
  is_mirror_dummy: boolean;
};

/**
 * Zulip's message dictionary before the per-client step: `content` is the Markdown
 * source and `rendered_content` the HTML; the message flavour (or a fetch) keeps one.
 */
export type WireMessage = {
  id: number;
  type: "stream" | "private";
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  sender_realm_str: string;
  avatar_url: string | null;
  client: string;
  content: string;
  rendered_content: string;
  content_type: string;
  recipient_id: number;
  /** Channel name, or the participants of a direct message. */
  display_recipient: string | DisplayRecipientUser[];
  subject: string;
  topic_links: Array<{ text: string; url: string }>;
  timestamp: number;
  is_me_message: boolean;
  reactions: unknown[];
  submessages: unknown[];
  stream_id?: number;
};

/** The sending request's local_id and queue_id: that queue's event echoes local_message_id. */
export type LocalEcho = {
  localId: string;
  queueId: string;
};

/** What the message flavour needs besides the message itself; stripped before delivery. */
export type MessageEventHints = {
  /** Shown instead of the empty topic to clients without empty_topic_name. */
  emptyTopicDisplayName: string;
  /** May a client_gravatar client compute the sender's avatar itself? */
  senderAvatarComputable: boolean;
  /** Sent to a channel that is not invite-only: all_public_streams queues get it too. */
  publicChannel?: boolean;
  echo?: LocalEcho;
};

/** An emoji as reactions and statuses carry it. */
export type WireEmoji = {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
};

export type WireChannelFolder = {
  id: number;
  name: string;
  description: string;
  rendered_description: string;
  date_created: number | null;
  creator_id: number | null;
  order: number;
  is_archived: boolean;
};

/** A navigation view; `name` is omitted for built-in views. */
export type WireNavigationView = {
  fragment: string;
  is_pinned: boolean;
  name?: string;
};

export type WireSavedSnippet = {
  id: number;
  title: string;
  content: string;
  date_created: number;
};

/** A user's presence in the modern format (presenters/presence.ts). */
export type WireModernPresence = {
  active_timestamp: number;
  idle_timestamp: number;
};

/** A user's presence in the legacy format: one client, always "website" since Zulip 7.0. */
export type WireLegacyClientPresence = {
  client: "website";
  status: "active" | "idle";
  timestamp: number;
  pushable: false;
};

/** A draft (Zulip's Draft.to_dict); `timestamp` is the last edit, in whole seconds. */
export type WireDraft = {
  id: number;
  type: "" | "stream" | "private";
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
};

/** A scheduled message: `to` is a channel ID, with a topic, or direct message user IDs. */
export type WireScheduledMessage = {
  scheduled_message_id: number;
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
} & ({ type: "stream"; to: number; topic: string } | { type: "private"; to: number[] });

/** A message reminder: a direct message to the user themself, from the Notification Bot. */
export type WireReminder = {
  reminder_id: number;
  type: "private";
  to: number[];
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
  reminder_target_message_id: number;
};

/** An uploaded file (Zulip's Attachment.to_dict); times in milliseconds. */
export type WireAttachment = {
  id: number;
  name: string;
  path_id: string;
  size: number;
  create_time: number;
  messages: Array<{ id: number; date_sent: number }>;
};

/** An outgoing webhook bot's service, as realm_bots and realm_bot events list it. */
export type WireOutgoingService = { base_url: string; interface: number; token: string };
/** A configured bot's service (embedded bots; and config_data updates of any bot). */
export type WireConfigService = { config_data: Record<string, string>; service_name?: string };
export type WireBotService = WireOutgoingService | WireConfigService;

/** presentBot's bot dictionary (presenters/bots.ts), as register's realm_bots holds it. */
export type WireBot = {
  email: string;
  user_id: number;
  full_name: string;
  bot_type: number | null;
  is_active: boolean;
  api_key: string;
  default_sending_stream: string | null;
  default_events_register_stream: string | null;
  default_all_public_streams: boolean;
  avatar_url: string;
  owner_id?: number | null;
  services: WireBotService[];
};
