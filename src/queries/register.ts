import { fetchIncomingWebhookBotsState } from "./incoming-webhook-bots.js";
import { fetchDevicesState } from "./client-devices.js";
import { fetchAlertWordsState } from "./alert-words.js";
import { fetchCustomProfileFieldsState } from "./custom-profile-fields.js";
import { fetchDraftsState } from "./drafts.js";
import {
  fetchMessageState,
  fetchRecentPrivateConversationsState,
  fetchStarredMessagesState,
  fetchUnreadState,
} from "./message-state.js";
import { fetchMutedTopicsState, fetchMutedUsersState, fetchUserTopicState } from "./mutes.js";
import { fetchNavigationViewsState } from "./navigation-views.js";
import { fetchPresenceState } from "./presence.js";
import {
  fetchChannelFolderState,
  fetchDefaultStreamsState,
  fetchStreamState,
  fetchSubscriptionState,
} from "./subscriptions.js";
import { fetchRealmState, fetchRealmUserState } from "./realm-state.js";
import { fetchRealmUserGroupsState } from "./realm-state.js";
import { fetchSavedSnippetsState } from "./saved-snippets.js";
import { fetchRemindersState, fetchScheduledMessagesState } from "./scheduled-messages.js";
import { fetchUserStatusState } from "./user-status.js";
import { fetchRealmBotsState } from "./realm-bots.js";
import { fetchRealmEmojiState } from "./realm-emoji.js";
import { fetchRealmLinkifiersState, fetchRealmPlaygroundsState } from "./linkifiers.js";
import { fetchRealmDomainsState } from "./realm-domains.js";
import {
  fetchDefaultStreamGroupsState,
  fetchEmbeddedBotsState,
  fetchGiphyState,
  fetchOnboardingStepsState,
  fetchPushDevicesState,
  fetchRealmBillingState,
  fetchRealmFiltersState,
  fetchStopWordsState,
  fetchVideoCallsState,
} from "./unbuilt-features.js";
import {
  fetchLegacyDisplaySettingsState,
  fetchLegacyNotificationSettingsState,
  fetchRealmUserSettingsDefaultsState,
  fetchUserSettingsState,
} from "./user-settings.js";
import type { StateContext, StateFetcher } from "./state-context.js";

/**
 * POST /register's initial state, by fetch type (Zulip's fetch_event_types names).
 * Each feature adds its types here; the keys double as the list of supported types.
 */
export const STATE_FETCHERS: Readonly<Record<string, StateFetcher>> = {
  realm: fetchRealmState,
  realm_user: fetchRealmUserState,
  realm_bot: fetchRealmBotsState,
  realm_user_groups: fetchRealmUserGroupsState,
  custom_profile_fields: fetchCustomProfileFieldsState,
  user_status: fetchUserStatusState,
  presence: fetchPresenceState,
  user_settings: fetchUserSettingsState,
  update_display_settings: fetchLegacyDisplaySettingsState,
  update_global_notifications: fetchLegacyNotificationSettingsState,
  realm_user_settings_defaults: fetchRealmUserSettingsDefaultsState,
  navigation_views: fetchNavigationViewsState,
  saved_snippets: fetchSavedSnippetsState,
  drafts: fetchDraftsState,
  scheduled_messages: fetchScheduledMessagesState,
  reminders: fetchRemindersState,
  subscription: fetchSubscriptionState,
  stream: fetchStreamState,
  channel_folders: fetchChannelFolderState,
  default_streams: fetchDefaultStreamsState,
  message: fetchMessageState,
  recent_private_conversations: fetchRecentPrivateConversationsState,
  update_message_flags: fetchUnreadState,
  device: fetchDevicesState,
  starred_messages: fetchStarredMessagesState,
  user_topic: fetchUserTopicState,
  muted_topics: fetchMutedTopicsState,
  muted_users: fetchMutedUsersState,
  alert_words: fetchAlertWordsState,
  realm_incoming_webhook_bots: fetchIncomingWebhookBotsState,
  // Features chatd does not have yet: their empty state (queries/unbuilt-features.ts).
  realm_emoji: fetchRealmEmojiState,
  realm_linkifiers: fetchRealmLinkifiersState,
  realm_filters: fetchRealmFiltersState,
  realm_playgrounds: fetchRealmPlaygroundsState,
  realm_domains: fetchRealmDomainsState,
  default_stream_groups: fetchDefaultStreamGroupsState,
  realm_embedded_bots: fetchEmbeddedBotsState,
  onboarding_steps: fetchOnboardingStepsState,
  video_calls: fetchVideoCallsState,
  giphy: fetchGiphyState,
  stop_words: fetchStopWordsState,
  realm_billing: fetchRealmBillingState,
  push_device: fetchPushDevicesState,
};

/**
 * Builds the state for the requested types (all when null); unknown types are ignored.
 * `precomputed` holds the types already computed inside the write lock (register-capture.ts).
 */
export async function fetchInitialState(
  ctx: StateContext,
  precomputed: ReadonlyMap<string, Record<string, unknown>> = new Map(),
): Promise<Record<string, unknown>> {
  const wanted = ctx.fetchTypes === null ? Object.keys(STATE_FETCHERS) : ctx.fetchTypes;
  // The fetchers' queries go to one pinned read transaction, which runs them in turn; they
  // start side by side so their in-memory work overlaps the queries. Merged in requested order.
  const parts = await Promise.all(
    [...new Set(wanted)].map((type) => {
      const done = precomputed.get(type);
      return done ? Promise.resolve(done) : (STATE_FETCHERS[type]?.(ctx) ?? Promise.resolve({}));
    }),
  );
  const state: Record<string, unknown> = {};
  for (const part of parts) Object.assign(state, part);
  return state;
}
