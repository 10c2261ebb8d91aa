import type { Knex } from "knex";
import type { App } from "../app-context.js";
import type { UserRow } from "../db/rows.js";
import type { RealmSnapshot } from "../lib/realm-cache.js";
import { fetchCustomProfileFieldsState } from "../presenters/custom-profile-fields.js";
import {
  fetchMessageState,
  fetchRecentPrivateConversationsState,
  fetchUnreadState,
} from "../presenters/message-state.js";
import { fetchNavigationViewsState } from "../presenters/navigation-views.js";
import {
  fetchChannelFolderState,
  fetchDefaultStreamsState,
  fetchStreamState,
  fetchSubscriptionState,
} from "../presenters/channel-state.js";
import { fetchRealmState, fetchRealmUserState } from "../presenters/register-core.js";
import { fetchRealmUserGroupsState } from "../presenters/user-groups.js";
import { fetchSavedSnippetsState } from "../presenters/saved-snippets.js";
import { fetchUserStatusState } from "../presenters/user-status.js";
import type { QueueOptions } from "./types.js";

export interface StateContext {
  app: App;
  /** Read through this (the consistent-read handle), never app.knex directly. */
  knex: Knex;
  user: UserRow;
  realm: RealmSnapshot;
  options: QueueOptions;
  /** include_subscribers: true, false or "partial". */
  includeSubscribers: boolean | "partial";
}

export type StateFetcher = (ctx: StateContext) => Promise<Record<string, unknown>>;

/**
 * POST /register's initial state, by fetch type (Zulip's fetch_event_types names).
 * Each feature adds its types here; the keys double as the list of supported types.
 */
export const STATE_FETCHERS: Readonly<Record<string, StateFetcher>> = {
  realm: fetchRealmState,
  realm_user: fetchRealmUserState,
  realm_user_groups: fetchRealmUserGroupsState,
  custom_profile_fields: fetchCustomProfileFieldsState,
  user_status: fetchUserStatusState,
  navigation_views: fetchNavigationViewsState,
  saved_snippets: fetchSavedSnippetsState,
  subscription: fetchSubscriptionState,
  stream: fetchStreamState,
  channel_folders: fetchChannelFolderState,
  default_streams: fetchDefaultStreamsState,
  message: fetchMessageState,
  recent_private_conversations: fetchRecentPrivateConversationsState,
  update_message_flags: fetchUnreadState,
};

/** Builds the state for the requested types (all when null); unknown types are ignored. */
export async function fetchInitialState(
  ctx: StateContext,
  types: readonly string[] | null,
): Promise<Record<string, unknown>> {
  const wanted = types === null ? Object.keys(STATE_FETCHERS) : types;
  const state: Record<string, unknown> = {};
  for (const type of new Set(wanted)) {
    const fetcher = STATE_FETCHERS[type];
    if (fetcher) Object.assign(state, await fetcher(ctx));
  }
  return state;
}
