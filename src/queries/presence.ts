import type { App } from "../app.js";
import { nowSeconds } from "../clock.js";
import { bool, int, type UserRow } from "../db/rows.js";
import { hasCapability } from "../wire/events.js";
import { DEFAULT_PRESENCE_HISTORY_DAYS, OFFLINE_THRESHOLD_SECS } from "../lib/presence.js";
import { presentLegacyPresence, presentModernPresence } from "../presenters/presence.js";
import type { RealmSnapshot } from "../world/realm.js";
import type { StateFetcher } from "./state-context.js";
import { rawJsonObject, type RawJson } from "../lib/raw-json.js";
import { presenceEntries } from "./presence-map.js";

export interface PresenceQuery {
  /** Modern format keyed by user ID; else legacy, keyed by email. */
  slim: boolean;
  /** The client's last_update_id: only changes after it. */
  lastUpdateId?: number;
  /** How many days back (default 14); ignored once the client has data (lastUpdateId > 0). */
  historyLimitDays?: number;
}

export interface RealmPresences {
  /** The presences map, already encoded: clients poll it every minute. */
  presences: RawJson;
  /** The newest change included, else the client's own value, else -1. */
  lastUpdateId: number;
}

const DAY_SECS = 24 * 3600;

/**
 * Zulip's get_presences_for_realm: active human users' presence, nothing when the
 * realm disabled presence. chatd does not restrict which users a member may see
 * (can_access_all_users_group), so nobody's presence is withheld from anyone.
 */
export async function realmPresences(
  app: App,
  realm: RealmSnapshot,
  query: PresenceQuery,
): Promise<RealmPresences> {
  if (bool(realm.realm.presence_disabled)) return { presences: rawJsonObject([]), lastUpdateId: -1 };
  // history_limit_days=0: the client wants no presence data at all.
  if (query.historyLimitDays === 0)
    return { presences: rawJsonObject([]), lastUpdateId: query.lastUpdateId ?? -1 };
  const store = await app.presence.realm(realm.id);
  const windowSecs = (query.historyLimitDays ?? DEFAULT_PRESENCE_HISTORY_DAYS) * DAY_SECS;
  const { members, newest } = presenceEntries(
    app,
    store,
    realm,
    query.slim,
    query.lastUpdateId,
    windowSecs,
    nowSeconds(app.clock),
  );
  return { presences: rawJsonObject(members), lastUpdateId: newest ?? query.lastUpdateId ?? -1 };
}

/**
 * One user's presence as GET /users/{user_id_or_email}/presence shows it, or null when
 * the user never reported any. The legacy format drops `client` and `pushable` and
 * calls a user offline whose newest report is older than the offline threshold.
 */
export async function userPresence(
  app: App,
  realm: RealmSnapshot,
  target: UserRow,
  slim: boolean,
): Promise<Record<string, unknown> | null> {
  const record = (await app.presence.realm(realm.id)).records.get(target.id);
  if (!record) return null;
  const dateJoined = int(target.date_joined);
  if (slim) return { ...presentModernPresence(record, dateJoined) };
  const { website } = presentLegacyPresence(record, dateJoined);
  const entry = { status: website.status, timestamp: website.timestamp };
  const offline = nowSeconds(app.clock) - website.timestamp > OFFLINE_THRESHOLD_SECS;
  return { aggregated: { ...entry, status: offline ? "offline" : entry.status }, website: entry };
}

/** POST /register's `presence` fetch type. */
export const fetchPresenceState: StateFetcher = async ({ app, realm, options, presenceHistoryLimitDays }) => {
  // Clients that take modern presence events get modern presence data.
  const slim = options.slimPresence || hasCapability(options, "simplified_presence_events");
  const { presences, lastUpdateId } = await realmPresences(app, realm, {
    slim,
    historyLimitDays: presenceHistoryLimitDays,
  });
  return {
    presences,
    presence_last_update_id: lastUpdateId,
    server_timestamp: app.clock.nowMs() / 1000,
  };
};
