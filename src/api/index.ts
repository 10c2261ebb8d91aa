import type { Endpoint } from "../http/endpoint.js";
import { fetchApiKey, regenerateApiKey } from "./auth.js";
import { addAlertWords, getAlertWords, removeAlertWords } from "./alert-words.js";
import { getBotStorage, removeBotStorage, updateBotStorage } from "./bot-storage.js";
import { createBot, deactivateBot, getBots, regenerateBotApiKey, updateBot } from "./bots.js";
import {
  createCustomProfileField,
  deleteCustomProfileField,
  getCustomProfileFields,
  reorderCustomProfileFields,
  updateCustomProfileField,
} from "./custom-profile-fields.js";
import {
  createChannelFolder,
  getChannelFolders,
  reorderChannelFolders,
  updateChannelFolder,
} from "./channel-folders.js";
import { deleteQueue, getEvents, register } from "./events.js";
import { sendMessage } from "./message-send.js";
import { incomingWebhook } from "./incoming-webhooks.js";
import { getMessage, getMessages, getMessagesMatchesNarrow, renderMessage } from "./messages.js";
import { addReaction, removeReaction } from "./reactions.js";
import { getReadReceipts } from "./read-receipts.js";
import { reportMessage } from "./message-report.js";
import { addSubmessage } from "./submessages.js";
import { deleteMessage, deleteTopic } from "./message-delete.js";
import { editMessage, getMessageHistory } from "./message-edit.js";
import { getChannelTopics } from "./topics.js";
import { setMessageEditTyping, setTyping } from "./typing.js";
import {
  markAllAsRead,
  markStreamAsRead,
  markTopicAsRead,
  updateMessageFlags,
  updateMessageFlagsForNarrow,
} from "./message-flags.js";
import {
  addNavigationView,
  getNavigationViews,
  removeNavigationView,
  updateNavigationView,
} from "./navigation-views.js";
import {
  addAndroidRegistrationId,
  addApnsDeviceToken,
  removeAndroidRegistrationId,
  removeApnsDeviceToken,
  registerPushDevice,
  sendE2eeTestNotification,
  sendTestNotification,
} from "./push-devices.js";
import { registerClientDevice, removeClientDevice } from "./client-devices.js";
import {
  createSavedSnippet,
  deleteSavedSnippet,
  getSavedSnippets,
  updateSavedSnippet,
} from "./saved-snippets.js";
import { createDrafts, deleteDraft, editDraft, getDrafts } from "./drafts.js";
import {
  createScheduledMessage,
  deleteScheduledMessage,
  getScheduledMessages,
  updateScheduledMessage,
} from "./scheduled-messages.js";
import { createReminder, deleteReminder, getReminders } from "./reminders.js";
import { getServerSettings } from "./server-settings.js";
import { getAttachments, getFileTemporaryUrl, removeAttachment, uploadFile } from "./uploads.js";
import { deleteAvatar, setAvatar } from "./avatar.js";
import {
  addLinkifier,
  getLinkifiers,
  removeLinkifier,
  reorderLinkifiers,
  updateLinkifier,
} from "./linkifiers.js";
import { addPlayground, removePlayground } from "./playgrounds.js";
import { deactivateCustomEmoji, getCustomEmoji, uploadCustomEmoji } from "./realm-emoji.js";
import {
  updateDisplaySettings,
  updateNotificationSettings,
  updateRealmUserDefaults,
  updateSettings,
} from "./settings.js";
import { muteUser, unmuteUser } from "./muted-users.js";
import { updateMutedTopic, updateUserTopic } from "./user-topics.js";
import {
  createUserGroup,
  deactivateUserGroup,
  getIsUserGroupMember,
  getUserGroupMembers,
  getUserGroups,
  getUserGroupSubgroups,
  updateUserGroup,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
} from "./user-groups.js";
import { getUserStatus, updateOwnStatus } from "./user-status.js";
import { getRealmPresence, getUserPresence, updatePresence } from "./presence.js";
import {
  createUser,
  deactivateUser,
  getOwnUser,
  getUser,
  getUsers,
  reactivateUser,
  removeOwnProfileData,
  updateOwnProfileData,
  updateUser,
} from "./users.js";
import {
  addDefaultStream,
  archiveStream,
  createChannel,
  getStream,
  getStreamId,
  getStreams,
  getSubscribers,
  removeDefaultStream,
  updateStream,
} from "./streams.js";
import {
  getSubscriptionStatus,
  getSubscriptions,
  subscribe,
  unsubscribe,
  updateSubscriptionProperties,
  updateSubscriptions,
} from "./subscriptions.js";

/** Every endpoint the server serves under /api/v1. */
export const ENDPOINTS: readonly Endpoint[] = [
  incomingWebhook,
  // core
  getServerSettings,
  fetchApiKey,
  regenerateApiKey,
  register,
  getEvents,
  deleteQueue,
  // users
  getOwnUser,
  getUsers,
  createUser,
  getUser,
  // user groups
  createUserGroup,
  getUserGroups,
  updateUserGroup,
  deactivateUserGroup,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
  getUserGroupMembers,
  getIsUserGroupMember,
  getUserGroupSubgroups,
  updateUser,
  deactivateUser,
  reactivateUser,
  updateOwnProfileData,
  removeOwnProfileData,
  updateSettings,
  setAvatar,
  deleteAvatar,
  updateDisplaySettings,
  updateNotificationSettings,
  updateRealmUserDefaults,
  // bots
  createBot,
  getBots,
  updateBot,
  deactivateBot,
  regenerateBotApiKey,
  updateBotStorage,
  getBotStorage,
  removeBotStorage,
  // custom profile fields
  getCustomProfileFields,
  createCustomProfileField,
  updateCustomProfileField,
  deleteCustomProfileField,
  reorderCustomProfileFields,
  // user status
  updateOwnStatus,
  getUserStatus,
  // presence
  updatePresence,
  getRealmPresence,
  getUserPresence,
  // push devices (deprecated API)
  addApnsDeviceToken,
  removeApnsDeviceToken,
  addAndroidRegistrationId,
  removeAndroidRegistrationId,
  // mobile devices and push notifications (none: chatd has no push service)
  registerClientDevice,
  removeClientDevice,
  registerPushDevice,
  sendTestNotification,
  sendE2eeTestNotification,
  // custom emoji
  getCustomEmoji,
  uploadCustomEmoji,
  deactivateCustomEmoji,
  // linkifiers
  getLinkifiers,
  addLinkifier,
  updateLinkifier,
  removeLinkifier,
  reorderLinkifiers,
  // code playgrounds
  addPlayground,
  removePlayground,
  // muted users and alert words
  muteUser,
  unmuteUser,
  getAlertWords,
  addAlertWords,
  removeAlertWords,
  // navigation views
  getNavigationViews,
  addNavigationView,
  updateNavigationView,
  removeNavigationView,
  // saved snippets
  getSavedSnippets,
  createSavedSnippet,
  updateSavedSnippet,
  deleteSavedSnippet,
  // drafts
  getDrafts,
  createDrafts,
  editDraft,
  deleteDraft,
  // scheduled messages and reminders
  getScheduledMessages,
  createScheduledMessage,
  updateScheduledMessage,
  deleteScheduledMessage,
  getReminders,
  createReminder,
  deleteReminder,
  // channels
  subscribe,
  unsubscribe,
  updateSubscriptions,
  getSubscriptions,
  updateSubscriptionProperties,
  getSubscriptionStatus,
  updateUserTopic,
  updateMutedTopic,
  getStreams,
  getStream,
  getStreamId,
  getSubscribers,
  createChannel,
  updateStream,
  archiveStream,
  addDefaultStream,
  removeDefaultStream,
  // channel folders
  createChannelFolder,
  getChannelFolders,
  reorderChannelFolders,
  updateChannelFolder,
  // messages
  sendMessage,
  // uploaded files
  uploadFile,
  getFileTemporaryUrl,
  getAttachments,
  removeAttachment,
  // reading messages
  getMessages,
  getMessagesMatchesNarrow,
  renderMessage,
  updateMessageFlags,
  updateMessageFlagsForNarrow,
  markAllAsRead,
  markStreamAsRead,
  markTopicAsRead,
  addReaction,
  removeReaction,
  deleteMessage,
  deleteTopic,
  getChannelTopics,
  setTyping,
  setMessageEditTyping,
  editMessage,
  getMessageHistory,
  getReadReceipts,
  reportMessage,
  addSubmessage,
  getMessage,
];
