/**
 * Fetch types of Zulip features chatd does not have yet. Each answers with the real
 * value for a server without the feature (nothing defined, nothing stored), in the
 * documented shape, so clients that expect the key work; the issue that builds a
 * feature replaces its fetcher and adds its events. None of these values can change
 * today, so none has events.
 */
const constant = (state: Record<string, unknown>) => (): Promise<Record<string, unknown>> =>
  Promise.resolve(structuredClone(state));

/** The legacy form of linkifiers (queries/linkifiers.ts), which Zulip always sends empty. */
export const fetchRealmFiltersState = constant({ realm_filters: [] });

/** Default channel groups (none can be created yet; guests never see any). */
export const fetchDefaultStreamGroupsState = constant({ realm_default_stream_groups: [] });

/** Bot types this server runs itself: chatd has none. */
export const fetchEmbeddedBotsState = constant({ realm_embedded_bots: [] });

/** Onboarding hints are for Zulip's own web app; chatd shows none and has no tour video. */
export const fetchOnboardingStepsState = constant({ onboarding_steps: [], navigation_tour_video_url: null });

/** No Zoom integration, so no user has a Zoom token. */
export const fetchVideoCallsState = constant({ has_zoom_token: false });

/** No GIPHY API key is configured (Zulip sends "" then). */
export const fetchGiphyState = constant({ giphy_api_key: "" });

/** chatd's full-text search ignores no words. */
export const fetchStopWordsState = constant({ stop_words: [] });

/** No billing: nothing is ever pending. */
export const fetchRealmBillingState = constant({ realm_billing: { has_pending_sponsorship_request: false } });

/** E2EE push registrations: chatd has no push service, so none ever exists. */
export const fetchPushDevicesState = constant({ push_devices: {} });
