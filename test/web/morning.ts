/**
 * A morning in Elsinore, as Hamlet's queue gets it, and his register answer after it,
 * written out by hand (events-parity.test.ts checks the one gives the other).
 */
import type { InitialState, Message, Subscription } from "../../src/web/api/types.js";
import {
  ANNOUNCE,
  ARCHIVED,
  CORDELIA,
  DESIGN,
  GENERAL,
  IAGO,
  ME,
  OTHELLO,
  POLONIUS,
  SOCIAL,
  channel,
  directMessage,
  registerState,
  streamMessage,
  subscription,
  user,
} from "./fixtures.js";
import type { Unnumbered } from "./observe.js";

export const T = 1_795_100_000;

export const messageEvent = (message: Message): Unnumbered => ({
  type: "message",
  message: { ...message, flags: undefined } as unknown as Message,
  flags: message.flags,
});

export const flagsEvent = (
  op: "add" | "remove",
  flag: string,
  messages: number[],
  extra: { all?: boolean; message_details?: Record<string, Record<string, unknown>> } = {},
): Unnumbered => ({
  type: "update_message_flags",
  op,
  operation: op,
  flag,
  messages,
  all: extra.all ?? false,
  ...(extra.message_details ? { message_details: extra.message_details } : {}),
});

export const ANNOUNCE_SUB = subscription(ANNOUNCE, "announce", { color: "#a6c7e5", subscriber_count: 6 });
export const NEW_CHANNEL = channel(16, "new one", { subscriber_count: 0, date_created: T });
export const HORATIO = user(10, "horatio", 400, { date_joined: "2026-12-01T09:00+00:00" });
export const EMOJI = {
  "1": registerState().realm_emoji["1"]!,
  "2": registerState().realm_emoji["2"]!,
  "3": {
    id: "3",
    name: "tada",
    source_url: "/user_avatars/1/emoji/images/3.gif",
    deactivated: false,
    author_id: ME,
    still_url: "/user_avatars/1/emoji/images/still/3.png",
  },
};

/**
 * A busy morning in Elsinore, as Hamlet's queue gets it: every event type the client
 * handles, in Zulip's wire shapes (chatd's src/events/types.ts, as the flavours deliver
 * them to a queue registered with REGISTER_PARAMS).
 */
export const MORNING: Unnumbered[] = [
  messageEvent(streamMessage(112, { topic: "lunch", senderId: OTHELLO, flags: [] })),
  messageEvent(directMessage(113, { to: [ME], senderId: CORDELIA, flags: [] })),
  messageEvent(directMessage(114, { to: [ME], senderId: ME, flags: ["read"] })),
  // A channel-wide mention in a muted channel: not a mention while muted.
  messageEvent(
    streamMessage(115, {
      streamId: DESIGN,
      channelName: "design",
      topic: "specs",
      flags: ["stream_wildcard_mentioned", "wildcard_mentioned"],
    }),
  ),
  messageEvent(
    streamMessage(116, {
      streamId: SOCIAL,
      channelName: "social",
      topic: "party",
      senderId: IAGO,
      flags: ["mentioned"],
    }),
  ),
  // An edit that mentions Hamlet: the event carries his flags for the message.
  {
    type: "update_message",
    user_id: OTHELLO,
    edit_timestamp: T + 1,
    message_id: 101,
    message_ids: [101],
    rendering_only: false,
    stream_name: "general",
    stream_id: GENERAL,
    orig_content: "lunch?",
    orig_rendered_content: "<p>lunch?</p>",
    content: "lunch, @**Hamlet Dane**?",
    rendered_content: '<p>lunch, <span class="user-mention" data-user-id="4">@Hamlet Dane</span>?</p>',
    is_me_message: false,
    flags: ["mentioned", "starred"],
  },
  // Two messages of "lunch" move to "dinner".
  {
    type: "update_message",
    user_id: OTHELLO,
    edit_timestamp: T + 2,
    message_id: 102,
    message_ids: [102, 105],
    rendering_only: false,
    stream_name: "general",
    stream_id: GENERAL,
    propagate_mode: "change_later",
    orig_subject: "lunch",
    subject: "dinner",
    topic_links: [],
    flags: ["mentioned"],
  },
  // One message moves from design to social, its topic kept.
  {
    type: "update_message",
    user_id: IAGO,
    edit_timestamp: T + 3,
    message_id: 104,
    message_ids: [104],
    rendering_only: false,
    stream_name: "design",
    stream_id: DESIGN,
    new_stream_id: SOCIAL,
    propagate_mode: "change_one",
    orig_subject: "specs",
    flags: [],
  },
  // A starred message deleted; an unread one deleted.
  { type: "delete_message", message_ids: [90], message_type: "stream", stream_id: GENERAL, topic: "old" },
  {
    type: "delete_message",
    message_ids: [111],
    message_type: "stream",
    stream_id: SOCIAL,
    topic: "muted gossip",
  },
  flagsEvent("add", "read", [107]),
  flagsEvent("remove", "read", [100], {
    message_details: { "100": { type: "private", user_ids: [OTHELLO, CORDELIA], mentioned: true } },
  }),
  flagsEvent("add", "starred", [108]),
  {
    type: "reaction",
    op: "add",
    user_id: OTHELLO,
    user: { user_id: OTHELLO, email: "othello@zulip.test", full_name: "Othello Dane" },
    message_id: 112,
    emoji_name: "smile",
    emoji_code: "1f604",
    reaction_type: "unicode_emoji",
  },
  { type: "subscription", op: "update", property: "in_home_view", value: false, stream_id: SOCIAL },
  { type: "subscription", op: "update", property: "is_muted", value: true, stream_id: SOCIAL },
  { type: "subscription", op: "add", subscriptions: [ANNOUNCE_SUB as unknown as Record<string, unknown>] },
  { type: "subscription", op: "remove", subscriptions: [{ name: "archive stuff", stream_id: ARCHIVED }] },
  { type: "subscription", op: "peer_add", stream_ids: [GENERAL], user_ids: [POLONIUS] },
  {
    type: "stream",
    op: "update",
    stream_id: DESIGN,
    name: "design",
    property: "description",
    value: "All **things**",
    rendered_description: "<p>All <strong>things</strong></p>",
  },
  { type: "stream", op: "create", streams: [NEW_CHANNEL as unknown as Record<string, unknown>] },
  { type: "realm_user", op: "add", person: HORATIO },
  { type: "realm_user", op: "update", person: { user_id: OTHELLO, full_name: "Othello the Moor" } },
  { type: "realm_user", op: "update", person: { user_id: ME, role: 200 } },
  { type: "realm_user", op: "update", person: { user_id: CORDELIA, is_active: false } },
  { type: "user_settings", op: "update", property: "twenty_four_hour_time", value: true },
  {
    type: "user_status",
    user_id: IAGO,
    status_text: "busy",
    emoji_name: "calendar",
    emoji_code: "1f4c5",
    reaction_type: "unicode_emoji",
  },
  // Othello clears his status (text and emoji).
  {
    type: "user_status",
    user_id: OTHELLO,
    status_text: "",
    emoji_name: "",
    emoji_code: "",
    reaction_type: "",
  },
  // Following a topic of a muted channel unmutes it: its channel-wide mention counts again.
  { type: "user_topic", stream_id: DESIGN, topic_name: "specs", last_updated: T + 4, visibility_policy: 3 },
  {
    type: "user_topic",
    stream_id: SOCIAL,
    topic_name: "muted gossip",
    last_updated: T + 5,
    visibility_policy: 0,
  },
  { type: "muted_users", muted_users: [] },
  { type: "presence", presences: { [String(CORDELIA)]: { active_timestamp: T + 6, idle_timestamp: T + 6 } } },
  { type: "realm_emoji", op: "update", realm_emoji: EMOJI },
  {
    type: "realm",
    op: "update_dict",
    property: "default",
    data: { allow_message_editing: false, message_content_edit_limit_seconds: null },
  },
  {
    type: "drafts",
    op: "add",
    drafts: [{ id: 2, type: "private", to: [OTHELLO], topic: "", content: "psst", timestamp: T }],
  },
  {
    type: "drafts",
    op: "update",
    draft: { id: 2, type: "private", to: [OTHELLO], topic: "", content: "psst, Othello", timestamp: T + 7 },
  },
  { type: "drafts", op: "remove", draft_id: 1 },
  { type: "user_group", op: "add_members", group_id: 2, user_ids: [ME] },
  { type: "user_group", op: "remove_members", group_id: 20, user_ids: [OTHELLO] },
  { type: "user_group", op: "update", group_id: 20, data: { description: "Fans of the prince" } },
  {
    type: "user_group",
    op: "add",
    group: {
      id: 21,
      name: "players",
      creator_id: ME,
      date_created: T,
      description: "The players",
      members: [OTHELLO],
      direct_subgroup_ids: [],
      is_system_group: false,
      deactivated: false,
    },
  },
];

/** Hamlet's register answer after that morning, written out by hand. */
export function registerAfterMorning(): InitialState {
  const state = registerState();
  const general = state.subscriptions.find((s) => s.stream_id === GENERAL)!;
  general.subscriber_count = 4;
  const design = state.subscriptions.find((s) => s.stream_id === DESIGN)!;
  design.description = "All **things**";
  design.rendered_description = "<p>All <strong>things</strong></p>";
  const social = state.subscriptions.find((s) => s.stream_id === SOCIAL)!;
  social.is_muted = true;
  (social as Subscription & { in_home_view: boolean }).in_home_view = false;
  const archived = state.subscriptions.find((s) => s.stream_id === ARCHIVED)!;
  state.subscriptions = [...state.subscriptions.filter((s) => s.stream_id !== ARCHIVED), ANNOUNCE_SUB];
  // Hamlet left it: one subscriber fewer.
  state.unsubscribed = [...state.unsubscribed, { ...archived, subscriber_count: 2 }];
  state.never_subscribed = [NEW_CHANNEL];
  state.unread_msgs = {
    pms: [
      { other_user_id: ME, unread_message_ids: [109] },
      { other_user_id: OTHELLO, unread_message_ids: [108] },
      { other_user_id: CORDELIA, unread_message_ids: [113] },
    ],
    streams: [
      { stream_id: GENERAL, topic: "Lunch", unread_message_ids: [103] },
      { stream_id: GENERAL, topic: "dinner", unread_message_ids: [102, 105] },
      { stream_id: GENERAL, topic: "lunch", unread_message_ids: [101, 112] },
      { stream_id: DESIGN, topic: "specs", unread_message_ids: [115] },
      { stream_id: SOCIAL, topic: "party", unread_message_ids: [106, 116] },
      { stream_id: SOCIAL, topic: "specs", unread_message_ids: [104] },
    ],
    huddles: [{ user_ids_string: `${ME},${OTHELLO},${CORDELIA}`, unread_message_ids: [100, 110] }],
    // 115's channel-wide mention counts: its topic is followed now.
    mentions: [100, 101, 102, 106, 110, 115, 116],
    count: 11,
    old_unreads_missing: false,
  };
  state.starred_messages = [101, 108];
  state.max_message_id = 116;
  state.recent_private_conversations = [
    { max_message_id: 114, user_ids: [] },
    { max_message_id: 113, user_ids: [CORDELIA] },
    { max_message_id: 110, user_ids: [OTHELLO, CORDELIA] },
    { max_message_id: 108, user_ids: [OTHELLO] },
  ];
  const users = state.realm_users;
  users.find((u) => u.user_id === OTHELLO)!.full_name = "Othello the Moor";
  Object.assign(
    users.find((u) => u.user_id === ME)!,
    { role: 200, is_admin: true },
  );
  state.is_admin = true;
  const cordelia = users.find((u) => u.user_id === CORDELIA)!;
  state.realm_users = [...users.filter((u) => u.user_id !== CORDELIA), HORATIO];
  state.realm_non_active_users = [...state.realm_non_active_users, cordelia];
  state.user_settings = { ...state.user_settings, twenty_four_hour_time: true };
  state.user_status = {
    [String(IAGO)]: {
      status_text: "busy",
      emoji_name: "calendar",
      emoji_code: "1f4c5",
      reaction_type: "unicode_emoji",
    },
  };
  state.user_topics = [{ stream_id: DESIGN, topic_name: "specs", last_updated: T + 4, visibility_policy: 3 }];
  state.muted_users = [];
  state.presences[String(CORDELIA)] = { active_timestamp: T + 6, idle_timestamp: T + 6 };
  state.realm_emoji = EMOJI;
  state.realm_allow_message_editing = false;
  state.realm_message_content_edit_limit_seconds = null;
  state.drafts = [
    { id: 2, type: "private", to: [OTHELLO], topic: "", content: "psst, Othello", timestamp: T + 7 },
  ];
  const groups = state.realm_user_groups;
  groups.find((g) => g.id === 2)!.members = [IAGO, ME];
  Object.assign(
    groups.find((g) => g.id === 20)!,
    { members: [ME], description: "Fans of the prince" },
  );
  groups.push({
    id: 21,
    name: "players",
    creator_id: ME,
    date_created: T,
    description: "The players",
    members: [OTHELLO],
    direct_subgroup_ids: [],
    is_system_group: false,
    deactivated: false,
  } as InitialState["realm_user_groups"][number]);
  return state;
}
