import type { Context } from "koa";
import type { App } from "../app.js";
import type { AuthLevel, Endpoint, HttpMethod, RouteEntry } from "../http/endpoint.js";
import type { Exchange } from "../http/exchange.js";

/** Each table entry's loader of its real endpoint (declared first: the table below uses it). */
const loaders = new WeakMap<RouteEntry, () => Promise<Endpoint>>();

/** Each endpoint module's loader (the table below names an endpoint by module and export). */
const api = {
  alertWords: () => import("./alert-words.js"),
  auth: () => import("./auth.js"),
  avatar: () => import("./avatar.js"),
  botStorage: () => import("./bot-storage.js"),
  bots: () => import("./bots.js"),
  channelFolders: () => import("./channel-folders.js"),
  clientDevices: () => import("./client-devices.js"),
  customProfileFields: () => import("./custom-profile-fields.js"),
  drafts: () => import("./drafts.js"),
  events: () => import("./events.js"),
  incomingWebhooks: () => import("./incoming-webhooks.js"),
  invites: () => import("./invites.js"),
  linkifiers: () => import("./linkifiers.js"),
  messageDelete: () => import("./message-delete.js"),
  messageEdit: () => import("./message-edit.js"),
  messageFlags: () => import("./message-flags.js"),
  messageReport: () => import("./message-report.js"),
  messageSend: () => import("./message-send.js"),
  messages: () => import("./messages.js"),
  mutedUsers: () => import("./muted-users.js"),
  navigationViews: () => import("./navigation-views.js"),
  playgrounds: () => import("./playgrounds.js"),
  realmExport: () => import("./realm-export.js"),
  presence: () => import("./presence.js"),
  pushDevices: () => import("./push-devices.js"),
  reactions: () => import("./reactions.js"),
  readReceipts: () => import("./read-receipts.js"),
  realm: () => import("./realm.js"),
  realmEmoji: () => import("./realm-emoji.js"),
  reminders: () => import("./reminders.js"),
  savedSnippets: () => import("./saved-snippets.js"),
  scheduledMessages: () => import("./scheduled-messages.js"),
  serverSettings: () => import("./server-settings.js"),
  settings: () => import("./settings.js"),
  streams: () => import("./streams.js"),
  submessages: () => import("./submessages.js"),
  subscriptions: () => import("./subscriptions.js"),
  topics: () => import("./topics.js"),
  typing: () => import("./typing.js"),
  uploads: () => import("./uploads.js"),
  userGroups: () => import("./user-groups.js"),
  userStatus: () => import("./user-status.js"),
  userTopics: () => import("./user-topics.js"),
  users: () => import("./users.js"),
};

/**
 * Every endpoint the server serves under /api/v1, as a route table whose handlers load on
 * first use: an idle server holds only the modules of the endpoints it has served (each
 * endpoint module brings its actions, queries and presenters; most servers never see half
 * of them). The router needs each route's method, path and integer path parameters, and
 * the plain-Node path whether an endpoint answers without Koa, before anything loads; the
 * test test/unit/endpoint-table.test.ts checks every entry here against the endpoint it
 * loads, so the two cannot drift apart.
 */
export const ENDPOINTS: readonly RouteEntry[] = [
  route("POST", "/external/:integration", "user", api.incomingWebhooks, "incomingWebhook", {
    streamsBody: true,
    koaOnly: true,
  }),
  // core
  route("GET", "/server_settings", "anonymous", api.serverSettings, "getServerSettings"),
  route("POST", "/fetch_api_key", "anonymous", api.auth, "fetchApiKey"),
  route("POST", "/users/me/api_key/regenerate", "user", api.auth, "regenerateApiKey"),
  route("POST", "/register", "user", api.events, "register"),
  route("GET", "/events", "user", api.events, "getEvents"),
  route("DELETE", "/events", "user", api.events, "deleteQueue"),
  // users
  route("GET", "/users/me", "user", api.users, "getOwnUser"),
  route("GET", "/users", "user", api.users, "getUsers"),
  route("POST", "/users", "admin", api.users, "createUser"),
  route("GET", "/users/:user_id_or_email", "user", api.users, "getUser"),
  // user groups
  route("POST", "/user_groups/create", "user", api.userGroups, "createUserGroup"),
  route("GET", "/user_groups", "user", api.userGroups, "getUserGroups"),
  route("PATCH", "/user_groups/:user_group_id", "user", api.userGroups, "updateUserGroup", {
    ints: ["user_group_id"],
  }),
  route("POST", "/user_groups/:user_group_id/deactivate", "user", api.userGroups, "deactivateUserGroup", {
    ints: ["user_group_id"],
  }),
  route("POST", "/user_groups/:user_group_id/members", "user", api.userGroups, "updateUserGroupMembers", {
    ints: ["user_group_id"],
  }),
  route("POST", "/user_groups/:user_group_id/subgroups", "user", api.userGroups, "updateUserGroupSubgroups", {
    ints: ["user_group_id"],
  }),
  route("GET", "/user_groups/:user_group_id/members", "user", api.userGroups, "getUserGroupMembers", {
    ints: ["user_group_id"],
  }),
  route(
    "GET",
    "/user_groups/:user_group_id/members/:user_id",
    "user",
    api.userGroups,
    "getIsUserGroupMember",
    { ints: ["user_group_id", "user_id"] },
  ),
  route("GET", "/user_groups/:user_group_id/subgroups", "user", api.userGroups, "getUserGroupSubgroups", {
    ints: ["user_group_id"],
  }),
  route("PATCH", "/users/:user_id_or_email", "admin", api.users, "updateUser"),
  route("DELETE", "/users/me", "user", api.users, "deactivateOwnUser"),
  route("DELETE", "/users/:user_id", "admin", api.users, "deactivateUser", {
    ints: ["user_id"],
  }),
  route("POST", "/users/:user_id/reactivate", "user", api.users, "reactivateUser", {
    ints: ["user_id"],
  }),
  route("PATCH", "/users/me/profile_data", "user", api.users, "updateOwnProfileData"),
  route("DELETE", "/users/me/profile_data", "user", api.users, "removeOwnProfileData"),
  route("PATCH", "/settings", "user", api.settings, "updateSettings"),
  route("POST", "/users/me/avatar", "user", api.avatar, "setAvatar", {
    streamsBody: true,
  }),
  route("DELETE", "/users/me/avatar", "user", api.avatar, "deleteAvatar"),
  route("PATCH", "/settings/display", "user", api.settings, "updateDisplaySettings"),
  route("PATCH", "/settings/notifications", "user", api.settings, "updateNotificationSettings"),
  route("PATCH", "/realm", "admin", api.realm, "updateRealm"),
  route("POST", "/realm/test_welcome_bot_custom_message", "admin", api.realm, "testWelcomeBotCustomMessage"),
  route("PATCH", "/realm/user_settings_defaults", "admin", api.settings, "updateRealmUserDefaults"),
  // bots
  route("POST", "/bots", "user", api.bots, "createBot"),
  route("GET", "/bots", "user", api.bots, "getBots"),
  route("PATCH", "/bots/:bot_id", "user", api.bots, "updateBot", {
    ints: ["bot_id"],
  }),
  route("DELETE", "/bots/:bot_id", "user", api.bots, "deactivateBot", {
    ints: ["bot_id"],
  }),
  route("POST", "/bots/:bot_id/api_key/regenerate", "user", api.bots, "regenerateBotApiKey", {
    ints: ["bot_id"],
  }),
  route("PUT", "/bot_storage", "user", api.botStorage, "updateBotStorage"),
  route("GET", "/bot_storage", "user", api.botStorage, "getBotStorage"),
  route("DELETE", "/bot_storage", "user", api.botStorage, "removeBotStorage"),
  // custom profile fields
  route("GET", "/realm/profile_fields", "user", api.customProfileFields, "getCustomProfileFields"),
  route("POST", "/realm/profile_fields", "admin", api.customProfileFields, "createCustomProfileField"),
  route(
    "PATCH",
    "/realm/profile_fields/:field_id",
    "admin",
    api.customProfileFields,
    "updateCustomProfileField",
    { ints: ["field_id"] },
  ),
  route(
    "DELETE",
    "/realm/profile_fields/:field_id",
    "admin",
    api.customProfileFields,
    "deleteCustomProfileField",
    { ints: ["field_id"] },
  ),
  route("PATCH", "/realm/profile_fields", "admin", api.customProfileFields, "reorderCustomProfileFields"),
  // user status
  route("POST", "/users/me/status", "user", api.userStatus, "updateOwnStatus"),
  route("GET", "/users/:user_id/status", "user", api.userStatus, "getUserStatus", {
    ints: ["user_id"],
  }),
  route("POST", "/users/:user_id/status", "user", api.userStatus, "updateUserStatus", {
    ints: ["user_id"],
  }),
  // presence
  route("POST", "/users/me/presence", "user", api.presence, "updatePresence"),
  route("GET", "/realm/presence", "user", api.presence, "getRealmPresence"),
  route("GET", "/users/:user_id_or_email/presence", "user", api.presence, "getUserPresence"),
  // push devices (deprecated API)
  route("POST", "/users/me/apns_device_token", "user", api.pushDevices, "addApnsDeviceToken"),
  route("DELETE", "/users/me/apns_device_token", "user", api.pushDevices, "removeApnsDeviceToken"),
  route("POST", "/users/me/android_gcm_reg_id", "user", api.pushDevices, "addAndroidRegistrationId"),
  route("DELETE", "/users/me/android_gcm_reg_id", "user", api.pushDevices, "removeAndroidRegistrationId"),
  // mobile devices and push notifications (none: chatd has no push service)
  route("POST", "/register_client_device", "user", api.clientDevices, "registerClientDevice"),
  route("POST", "/remove_client_device", "user", api.clientDevices, "removeClientDevice"),
  route("POST", "/mobile_push/register", "user", api.pushDevices, "registerPushDevice"),
  route("POST", "/mobile_push/test_notification", "user", api.pushDevices, "sendTestNotification"),
  route("POST", "/mobile_push/e2ee/test_notification", "user", api.pushDevices, "sendE2eeTestNotification"),
  // custom emoji
  route("GET", "/realm/emoji", "user", api.realmEmoji, "getCustomEmoji"),
  route("POST", "/realm/emoji/:emoji_name", "user", api.realmEmoji, "uploadCustomEmoji", {
    streamsBody: true,
  }),
  route("DELETE", "/realm/emoji/:emoji_name", "user", api.realmEmoji, "deactivateCustomEmoji"),
  // linkifiers
  route("GET", "/realm/linkifiers", "user", api.linkifiers, "getLinkifiers"),
  route("POST", "/realm/filters", "admin", api.linkifiers, "addLinkifier"),
  route("PATCH", "/realm/filters/:filter_id", "admin", api.linkifiers, "updateLinkifier", {
    ints: ["filter_id"],
  }),
  route("DELETE", "/realm/filters/:filter_id", "admin", api.linkifiers, "removeLinkifier", {
    ints: ["filter_id"],
  }),
  route("PATCH", "/realm/linkifiers", "admin", api.linkifiers, "reorderLinkifiers"),
  // invitations
  route("GET", "/invites", "user", api.invites, "getInvites"),
  route("POST", "/invites", "user", api.invites, "sendInvites"),
  route("POST", "/invites/multiuse", "user", api.invites, "createInviteLink"),
  route("DELETE", "/invites/multiuse/:invite_id", "user", api.invites, "revokeInviteLink", {
    ints: ["invite_id"],
  }),
  route("DELETE", "/invites/:invite_id", "user", api.invites, "revokeEmailInvite", { ints: ["invite_id"] }),
  route("POST", "/invites/:invite_id/resend", "user", api.invites, "resendEmailInvite", {
    ints: ["invite_id"],
  }),
  // data exports (Zulip: require_realm_admin)
  route("GET", "/export/realm", "admin", api.realmExport, "getRealmExports"),
  route("POST", "/export/realm", "admin", api.realmExport, "startRealmExport"),
  route("GET", "/export/realm/consents", "admin", api.realmExport, "getExportConsents"),
  route("DELETE", "/export/realm/:export_id", "admin", api.realmExport, "deleteRealmExport", {
    ints: ["export_id"],
  }),
  // code playgrounds
  route("POST", "/realm/playgrounds", "admin", api.playgrounds, "addPlayground"),
  route("DELETE", "/realm/playgrounds/:playground_id", "admin", api.playgrounds, "removePlayground", {
    ints: ["playground_id"],
  }),
  // muted users and alert words
  route("POST", "/users/me/muted_users/:muted_user_id", "user", api.mutedUsers, "muteUser", {
    ints: ["muted_user_id"],
  }),
  route("DELETE", "/users/me/muted_users/:muted_user_id", "user", api.mutedUsers, "unmuteUser", {
    ints: ["muted_user_id"],
  }),
  route("GET", "/users/me/alert_words", "user", api.alertWords, "getAlertWords"),
  route("POST", "/users/me/alert_words", "user", api.alertWords, "addAlertWords"),
  route("DELETE", "/users/me/alert_words", "user", api.alertWords, "removeAlertWords"),
  // navigation views
  route("GET", "/navigation_views", "user", api.navigationViews, "getNavigationViews"),
  route("POST", "/navigation_views", "user", api.navigationViews, "addNavigationView"),
  route("PATCH", "/navigation_views/*fragment", "user", api.navigationViews, "updateNavigationView"),
  route("DELETE", "/navigation_views/*fragment", "user", api.navigationViews, "removeNavigationView"),
  // saved snippets
  route("GET", "/saved_snippets", "user", api.savedSnippets, "getSavedSnippets"),
  route("POST", "/saved_snippets", "user", api.savedSnippets, "createSavedSnippet"),
  route("PATCH", "/saved_snippets/:saved_snippet_id", "user", api.savedSnippets, "updateSavedSnippet", {
    ints: ["saved_snippet_id"],
  }),
  route("DELETE", "/saved_snippets/:saved_snippet_id", "user", api.savedSnippets, "deleteSavedSnippet", {
    ints: ["saved_snippet_id"],
  }),
  // drafts
  route("GET", "/drafts", "user", api.drafts, "getDrafts"),
  route("POST", "/drafts", "user", api.drafts, "createDrafts"),
  route("PATCH", "/drafts/:draft_id", "user", api.drafts, "editDraft", {
    ints: ["draft_id"],
  }),
  route("DELETE", "/drafts/:draft_id", "user", api.drafts, "deleteDraft", {
    ints: ["draft_id"],
  }),
  // scheduled messages and reminders
  route("GET", "/scheduled_messages", "user", api.scheduledMessages, "getScheduledMessages"),
  route("POST", "/scheduled_messages", "user", api.scheduledMessages, "createScheduledMessage"),
  route(
    "PATCH",
    "/scheduled_messages/:scheduled_message_id",
    "user",
    api.scheduledMessages,
    "updateScheduledMessage",
    { ints: ["scheduled_message_id"] },
  ),
  route(
    "DELETE",
    "/scheduled_messages/:scheduled_message_id",
    "user",
    api.scheduledMessages,
    "deleteScheduledMessage",
    { ints: ["scheduled_message_id"] },
  ),
  route("GET", "/reminders", "user", api.reminders, "getReminders"),
  route("POST", "/reminders", "user", api.reminders, "createReminder"),
  route("DELETE", "/reminders/:reminder_id", "user", api.reminders, "deleteReminder", {
    ints: ["reminder_id"],
  }),
  // channels
  route("POST", "/users/me/subscriptions", "user", api.subscriptions, "subscribe"),
  route("DELETE", "/users/me/subscriptions", "user", api.subscriptions, "unsubscribe"),
  route("PATCH", "/users/me/subscriptions", "user", api.subscriptions, "updateSubscriptions"),
  route("GET", "/users/me/subscriptions", "user", api.subscriptions, "getSubscriptions"),
  route(
    "POST",
    "/users/me/subscriptions/properties",
    "user",
    api.subscriptions,
    "updateSubscriptionProperties",
  ),
  route(
    "GET",
    "/users/:user_id/subscriptions/:stream_id",
    "user",
    api.subscriptions,
    "getSubscriptionStatus",
    { ints: ["user_id", "stream_id"] },
  ),
  route("POST", "/user_topics", "user", api.userTopics, "updateUserTopic"),
  route("PATCH", "/users/me/subscriptions/muted_topics", "user", api.userTopics, "updateMutedTopic"),
  route("GET", "/streams", "user", api.streams, "getStreams"),
  route("GET", "/streams/:stream_id", "user", api.streams, "getStream", {
    ints: ["stream_id"],
  }),
  route("GET", "/get_stream_id", "user", api.streams, "getStreamId"),
  route("GET", "/streams/:stream_id/members", "user", api.streams, "getSubscribers", {
    ints: ["stream_id"],
  }),
  route("POST", "/channels/create", "user", api.streams, "createChannel"),
  route("PATCH", "/streams/:stream_id", "user", api.streams, "updateStream", {
    ints: ["stream_id"],
  }),
  route("DELETE", "/streams/:stream_id", "user", api.streams, "archiveStream", {
    ints: ["stream_id"],
  }),
  route("POST", "/default_streams", "admin", api.streams, "addDefaultStream"),
  route("DELETE", "/default_streams", "admin", api.streams, "removeDefaultStream"),
  // channel folders
  route("POST", "/channel_folders/create", "admin", api.channelFolders, "createChannelFolder"),
  route("GET", "/channel_folders", "user", api.channelFolders, "getChannelFolders"),
  route("PATCH", "/channel_folders", "admin", api.channelFolders, "reorderChannelFolders"),
  route("PATCH", "/channel_folders/:channel_folder_id", "admin", api.channelFolders, "updateChannelFolder", {
    ints: ["channel_folder_id"],
  }),
  // messages
  route("POST", "/messages", "user", api.messageSend, "sendMessage"),
  // uploaded files
  route("POST", "/user_uploads", "user", api.uploads, "uploadFile", {
    streamsBody: true,
  }),
  route("GET", "/user_uploads/:realm_id_str/*filename", "user", api.uploads, "getFileTemporaryUrl"),
  route("GET", "/attachments", "user", api.uploads, "getAttachments"),
  route("DELETE", "/attachments/:attachment_id", "user", api.uploads, "removeAttachment", {
    ints: ["attachment_id"],
  }),
  // reading messages
  route("GET", "/messages", "user", api.messages, "getMessages"),
  route("GET", "/messages/matches_narrow", "user", api.messages, "getMessagesMatchesNarrow"),
  route("POST", "/messages/render", "user", api.messages, "renderMessage"),
  route("POST", "/messages/flags", "user", api.messageFlags, "updateMessageFlags"),
  route("POST", "/messages/flags/narrow", "user", api.messageFlags, "updateMessageFlagsForNarrow"),
  route("POST", "/mark_all_as_read", "user", api.messageFlags, "markAllAsRead"),
  route("POST", "/mark_stream_as_read", "user", api.messageFlags, "markStreamAsRead"),
  route("POST", "/mark_topic_as_read", "user", api.messageFlags, "markTopicAsRead"),
  route("POST", "/messages/:message_id/reactions", "user", api.reactions, "addReaction", {
    ints: ["message_id"],
  }),
  route("DELETE", "/messages/:message_id/reactions", "user", api.reactions, "removeReaction", {
    ints: ["message_id"],
  }),
  route("DELETE", "/messages/:message_id", "user", api.messageDelete, "deleteMessage", {
    ints: ["message_id"],
  }),
  route("POST", "/streams/:stream_id/delete_topic", "admin", api.messageDelete, "deleteTopic", {
    ints: ["stream_id"],
  }),
  route("GET", "/users/me/:stream_id/topics", "user", api.topics, "getChannelTopics", {
    ints: ["stream_id"],
  }),
  route("POST", "/typing", "user", api.typing, "setTyping"),
  route("POST", "/messages/:message_id/typing", "user", api.typing, "setMessageEditTyping", {
    ints: ["message_id"],
  }),
  route("PATCH", "/messages/:message_id", "user", api.messageEdit, "editMessage", {
    ints: ["message_id"],
  }),
  route("GET", "/messages/:message_id/history", "user", api.messageEdit, "getMessageHistory", {
    ints: ["message_id"],
  }),
  route("GET", "/messages/:message_id/read_receipts", "user", api.readReceipts, "getReadReceipts", {
    ints: ["message_id"],
  }),
  route("POST", "/messages/:message_id/report", "user", api.messageReport, "reportMessage", {
    ints: ["message_id"],
  }),
  route("POST", "/submessage", "user", api.submessages, "addSubmessage"),
  route("GET", "/messages/:message_id", "user", api.messages, "getMessage", {
    ints: ["message_id"],
  }),
];

interface RouteFacts {
  /** Path parameters that are integer IDs (Endpoint.intPathParams). */
  ints?: readonly string[];
  streamsBody?: true;
  /** Answers through Koa's context only (no Endpoint.answer). */
  koaOnly?: true;
}

/**
 * The endpoint exported as `name` by the module `load` brings, loaded on its first request.
 * Once loaded, each call goes straight to the real endpoint (no extra await); until then,
 * requests wait for the load.
 */
function route<K extends string>(
  method: HttpMethod,
  path: string,
  auth: AuthLevel,
  load: () => Promise<{ readonly [key in NoInfer<K>]: Endpoint }>,
  name: K,
  facts: RouteFacts = {},
): RouteEntry {
  let loaded: Endpoint | undefined;
  let loading: Promise<Endpoint> | undefined;
  const real = (): Promise<Endpoint> =>
    (loading ??= load().then(
      (module) => (loaded = module[name]),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    ));
  const run = (app: App, ctx: Context, pathParams: Readonly<Record<string, string>>): Promise<void> =>
    loaded ? loaded.run(app, ctx, pathParams) : real().then((e) => e.run(app, ctx, pathParams));
  const answer = (app: App, exchange: Exchange, pathParams: Readonly<Record<string, string>>) =>
    loaded
      ? loaded.answer!(app, exchange, pathParams)
      : real().then((e) => e.answer!(app, exchange, pathParams));
  const entry: RouteEntry = {
    method,
    path,
    auth,
    intPathParams: new Set(facts.ints ?? []),
    streamsBody: facts.streamsBody === true,
    run,
    ...(facts.koaOnly ? {} : { answer }),
  };
  loaders.set(entry, real);
  return entry;
}

/**
 * The endpoints themselves, every module loaded: what the table above does not hold (each
 * endpoint's parameter names, for the fault tests' fuzzer), and what tests compare it with.
 */
export function loadEndpoints(): Promise<Endpoint[]> {
  return Promise.all(ENDPOINTS.map((endpoint) => loaders.get(endpoint)!()));
}
