/**
 * A realistic register answer and messages for the web client's model tests, in the
 * shapes chatd's POST /register gives a client registered with REGISTER_PARAMS (taken
 * from a real answer, trimmed to what the client reads and a few fields it does not).
 * The cast is the test realm's (test/helpers/factories.ts); the user is Hamlet.
 */
import type {
  Channel,
  InitialState,
  Message,
  Subscription,
  User,
  UserGroup,
  UserSettings,
} from "../../src/web/api/types.js";

export const DESDEMONA = 1;
export const IAGO = 2;
export const PROSPERO = 3;
export const HAMLET = 4;
export const OTHELLO = 5;
export const CORDELIA = 6;
export const POLONIUS = 7;
export const NOTIFICATION_BOT = 8;
export const YORICK = 9;
export const ME = HAMLET;

export const GENERAL = 10;
export const DESIGN = 11;
export const SOCIAL = 12;
export const ANNOUNCE = 13;
export const OLD = 14;
export const ARCHIVED = 15;

const ROLE = { owner: 100, admin: 200, moderator: 300, member: 400, guest: 600 } as const;

const DATE = 1_795_000_000;

export function user(userId: number, first: string, role: number, extra: Partial<User> = {}): User {
  const email = `${first}@zulip.test`;
  return {
    email,
    user_id: userId,
    avatar_url: `https://secure.gravatar.com/avatar/${userId}?d=identicon&version=1`,
    is_admin: role <= ROLE.admin,
    is_owner: role === ROLE.owner,
    is_guest: role === ROLE.guest,
    role,
    is_bot: false,
    full_name: `${first.charAt(0).toUpperCase()}${first.slice(1)} ${role === ROLE.guest ? "Guest" : "Dane"}`,
    timezone: "",
    date_joined: "2026-11-28T11:00+00:00",
    delivery_email: email,
    bot_type: null,
    profile_data: {},
    // Register's user records carry no is_active: the list a user is in says it.
    ...extra,
  } as User;
}

export function channel(streamId: number, name: string, extra: Partial<Channel> = {}): Channel {
  return {
    is_archived: false,
    creator_id: IAGO,
    date_created: DATE,
    description: "",
    first_message_id: null,
    folder_id: null,
    history_public_to_subscribers: true,
    invite_only: false,
    is_web_public: false,
    name,
    rendered_description: "",
    stream_id: streamId,
    stream_post_policy: 1,
    subscriber_count: 3,
    topics_policy: "inherit",
    ...extra,
  } as Channel;
}

export function subscription(
  streamId: number,
  name: string,
  extra: Partial<Subscription> = {},
): Subscription {
  const muted = extra.is_muted ?? false;
  return {
    ...channel(streamId, name),
    audible_notifications: null,
    color: "#76ce90",
    desktop_notifications: null,
    email_notifications: null,
    in_home_view: !muted,
    is_muted: muted,
    pin_to_top: false,
    push_notifications: null,
    wildcard_mentions_notify: null,
    ...extra,
  };
}

const SETTINGS: UserSettings = {
  twenty_four_hour_time: false,
  enter_sends: false,
  color_scheme: 1,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  enable_desktop_notifications: true,
  enable_sounds: true,
  enable_stream_desktop_notifications: false,
  pm_content_in_desktop_notifications: true,
  wildcard_mentions_notify: true,
  enable_followed_topic_desktop_notifications: true,
  enable_drafts_synchronization: true,
  display_emoji_reaction_users: true,
  emojiset: "google",
  left_side_userlist: false,
  default_language: "en",
  web_home_view: "inbox",
};

const group = (id: number, name: string, members: number[], subgroups: number[] = []): UserGroup =>
  ({
    id,
    name,
    creator_id: null,
    date_created: DATE,
    description: "",
    members,
    direct_subgroup_ids: subgroups,
    is_system_group: name.startsWith("role:"),
    deactivated: false,
  }) as UserGroup;

/**
 * Hamlet's register answer: three subscriptions (design muted, social pinned, one archived),
 * a channel never subscribed to and one left; unread messages in channels (a topic in two
 * spellings), with Othello, with himself and in a group; mentions, a status, presence,
 * a muted topic and user, an emoji, a draft, starred messages.
 */
export function registerState(overrides: Partial<InitialState> = {}): InitialState {
  const base = {
    queue_id: "1795863608:72df3430b397",
    last_event_id: -1,
    zulip_feature_level: 496,
    zulip_version: "11.0-chatd",
    user_id: ME,
    email: "hamlet@zulip.test",
    delivery_email: "hamlet@zulip.test",
    full_name: "Hamlet Dane",
    is_admin: false,
    is_owner: false,
    is_moderator: false,
    is_guest: false,
    avatar_url: `https://secure.gravatar.com/avatar/${ME}?d=identicon&version=1`,
    realm_name: "Elsinore",
    realm_description: "<p>Something is rotten</p>",
    realm_icon_url: "http://chatd.test/static/images/logo/chatd-icon-128x128.png?version=1",
    realm_users: [
      user(DESDEMONA, "desdemona", ROLE.owner),
      user(IAGO, "iago", ROLE.admin),
      user(PROSPERO, "prospero", ROLE.moderator),
      user(HAMLET, "hamlet", ROLE.member),
      user(OTHELLO, "othello", ROLE.member),
      user(CORDELIA, "cordelia", ROLE.member),
      user(POLONIUS, "polonius", ROLE.guest),
    ],
    realm_non_active_users: [user(YORICK, "yorick", ROLE.member)],
    cross_realm_bots: [
      user(NOTIFICATION_BOT, "notification-bot", ROLE.member, {
        email: "notification-bot@chatd.test",
        full_name: "Notification Bot",
        is_bot: true,
        bot_type: 1,
      }),
    ],
    realm_user_groups: [
      group(1, "role:owners", [DESDEMONA]),
      group(2, "role:administrators", [IAGO], [1]),
      group(20, "hamlet-fans", [HAMLET, OTHELLO]),
    ],
    subscriptions: [
      subscription(GENERAL, "general", { color: "#fae589" }),
      subscription(DESIGN, "design", { is_muted: true }),
      subscription(SOCIAL, "social", { pin_to_top: true }),
      subscription(ARCHIVED, "archive stuff", { is_archived: true }),
    ],
    unsubscribed: [subscription(OLD, "old")],
    never_subscribed: [channel(ANNOUNCE, "announce", { subscriber_count: 5 })],
    unread_msgs: {
      pms: [
        { other_user_id: ME, unread_message_ids: [109] },
        { other_user_id: OTHELLO, unread_message_ids: [107, 108] },
      ],
      streams: [
        { stream_id: GENERAL, topic: "Lunch", unread_message_ids: [103] },
        { stream_id: GENERAL, topic: "lunch", unread_message_ids: [101, 102, 105] },
        { stream_id: DESIGN, topic: "specs", unread_message_ids: [104] },
        { stream_id: SOCIAL, topic: "party", unread_message_ids: [106] },
        { stream_id: SOCIAL, topic: "muted gossip", unread_message_ids: [111] },
      ],
      huddles: [{ user_ids_string: `${ME},${OTHELLO},${CORDELIA}`, unread_message_ids: [110] }],
      mentions: [102, 106, 110],
      count: 9,
      old_unreads_missing: false,
    },
    user_settings: SETTINGS,
    user_topics: [
      { stream_id: SOCIAL, topic_name: "muted gossip", last_updated: DATE, visibility_policy: 1 },
    ],
    muted_users: [{ id: POLONIUS, timestamp: DATE }],
    presences: {
      [String(OTHELLO)]: { active_timestamp: DATE + 50, idle_timestamp: DATE + 60 },
      [String(IAGO)]: { active_timestamp: DATE - 3600, idle_timestamp: DATE - 3600 },
    },
    server_timestamp: DATE + 61.5,
    presence_last_update_id: 12,
    user_status: {
      [String(OTHELLO)]: {
        status_text: "at lunch",
        emoji_name: "car",
        emoji_code: "1f697",
        reaction_type: "unicode_emoji",
      },
    },
    realm_emoji: {
      "1": {
        id: "1",
        name: "octopus",
        source_url: "/user_avatars/1/emoji/images/1.png",
        deactivated: false,
        author_id: IAGO,
        still_url: null,
      },
      "2": {
        id: "2",
        name: "retired",
        source_url: "/user_avatars/1/emoji/images/2.png",
        deactivated: true,
        author_id: IAGO,
        still_url: null,
      },
    },
    drafts: [
      { id: 1, type: "stream", to: [GENERAL], topic: "lunch", content: "I'll bring", timestamp: DATE },
    ],
    starred_messages: [101, 90],
    max_message_id: 111,
    recent_private_conversations: [
      { max_message_id: 110, user_ids: [OTHELLO, CORDELIA] },
      { max_message_id: 109, user_ids: [] },
      { max_message_id: 108, user_ids: [OTHELLO] },
    ],
    realm_allow_message_editing: true,
    realm_message_content_edit_limit_seconds: 600,
    realm_message_content_delete_limit_seconds: null,
    realm_move_messages_within_stream_limit_seconds: 604800,
    realm_enable_read_receipts: false,
    max_file_upload_size_mib: 25,
    server_emoji_data_url: "http://chatd.test/static/generated/emoji/emoji_api.json?v=e83ca4057c5e2351",
    realm_empty_topic_display_name: "general chat",
    realm_mandatory_topics: false,
    realm_email_changes_disabled: false,
    realm_topics_policy: "allow_empty_topic",
    server_typing_started_wait_period_milliseconds: 10000,
    server_typing_stopped_wait_period_milliseconds: 5000,
    server_typing_started_expiry_period_milliseconds: 15000,
  };
  return { ...structuredClone(base), ...overrides } as unknown as InitialState;
}

const CAST_NAMES: Record<number, string> = {
  [DESDEMONA]: "desdemona",
  [IAGO]: "iago",
  [PROSPERO]: "prospero",
  [HAMLET]: "hamlet",
  [OTHELLO]: "othello",
  [CORDELIA]: "cordelia",
  [POLONIUS]: "polonius",
};

const participant = (id: number) => ({
  id,
  email: `${CAST_NAMES[id] ?? `user${id}`}@zulip.test`,
  full_name: `${CAST_NAMES[id] ?? `user${id}`} Dane`,
  is_mirror_dummy: false,
});

function messageBase(id: number, senderId: number, flags: string[]) {
  const sender = participant(senderId);
  return {
    id,
    sender_id: senderId,
    sender_email: sender.email,
    sender_full_name: sender.full_name,
    sender_realm_str: "36529ffb66c7",
    avatar_url: `https://secure.gravatar.com/avatar/${senderId}?d=identicon&version=1`,
    client: "website",
    content: `<p>message ${id}</p>`,
    content_type: "text/html",
    topic_links: [],
    timestamp: DATE + id,
    is_me_message: false,
    reactions: [],
    submessages: [],
    flags,
  };
}

/** A channel message as GET /messages and message events give it (HTML content). */
export function streamMessage(
  id: number,
  options: {
    streamId?: number;
    channelName?: string;
    topic?: string;
    senderId?: number;
    flags?: string[];
  } = {},
): Message {
  return {
    ...messageBase(id, options.senderId ?? OTHELLO, options.flags ?? []),
    type: "stream",
    recipient_id: 100 + (options.streamId ?? GENERAL),
    display_recipient: options.channelName ?? "general",
    stream_id: options.streamId ?? GENERAL,
    subject: options.topic ?? "lunch",
  };
}

/** A direct message between the sender and `to` (display_recipient lists everyone, sender included). */
export function directMessage(
  id: number,
  options: { to?: number[]; senderId?: number; flags?: string[] } = {},
): Message {
  const senderId = options.senderId ?? OTHELLO;
  const everyone = [...new Set([senderId, ...(options.to ?? [ME])])].sort((a, b) => a - b);
  return {
    ...messageBase(id, senderId, options.flags ?? []),
    type: "private",
    recipient_id: 1000 + everyone.reduce((a, b) => a * 31 + b, 0),
    display_recipient: everyone.map(participant),
    subject: "",
  };
}
