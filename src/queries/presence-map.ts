import type { App } from "../app.js";
import type { PresenceRecord, RealmPresence } from "../cache/presence-store.js";
import { bool, int, type UserRow } from "../db/rows.js";
import { DEFAULT_PRESENCE_HISTORY_DAYS } from "../lib/presence.js";
import { jsonMember } from "../lib/raw-json.js";
import { presentLegacyPresence, presentModernPresence } from "../presenters/presence.js";
import type { RealmSnapshot } from "../world/realm.js";

/**
 * The members of a presences map, encoded ahead of time. Every client fetches everyone's
 * presence every minute while, in a big realm, someone's presence changes every few
 * milliseconds; so each record's member is encoded once per change, and the list of the
 * default 14-day map is kept up to date change by change instead of rebuilt per poll.
 */

/** Records are replaced, never changed, so a record's encoded members stay valid. */
const encoded = new WeakMap<PresenceRecord, { modern?: Buffer; legacy?: Buffer; email?: string }>();

/** `"key":value` of a user's entry (leading comma included, see jsonMember). */
export function presenceMember(user: UserRow, record: PresenceRecord, slim: boolean): Buffer {
  let cached = encoded.get(record);
  if (!cached) encoded.set(record, (cached = {}));
  if (slim) {
    return (cached.modern ??= jsonMember(
      String(user.id),
      presentModernPresence(record, int(user.date_joined)),
    ));
  }
  // Legacy maps are keyed by email, which can change.
  if (cached.email !== user.email || !cached.legacy) {
    cached.legacy = jsonMember(user.email, presentLegacyPresence(record, int(user.date_joined)));
    cached.email = user.email;
  }
  return cached.legacy;
}

/** Whose presence realms show: active people (Zulip leaves bots out). */
export function showsPresence(user: UserRow | undefined): user is UserRow {
  return user !== undefined && bool(user.is_active) && !bool(user.is_bot);
}

/** One realm's presences map in one format, for a window of days ending now. */
interface PresenceMap {
  /** Who may appear was decided against this snapshot (active, bot, email). */
  readonly snapshot: RealmSnapshot;
  /** The store's lastUpdateId this map reflects. */
  version: number;
  /** When the oldest member leaves the window (UNIX seconds): start over then. */
  readonly expiresAt: number;
  /** The newest update among members and among users left out as too old. */
  newest: number | null;
  readonly newestLeftOut: number;
  readonly positions: Map<number, number>;
  readonly members: Buffer[];
  readonly records: PresenceRecord[];
}

const maps = new WeakMap<RealmPresence, { modern?: PresenceMap; legacy?: PresenceMap }>();

export interface PresenceEntries {
  members: Buffer[];
  /** The newest update among them, null when none. */
  newest: number | null;
}

/** The window the kept map covers; other windows are read record by record. */
const DEFAULT_WINDOW_SECS = DEFAULT_PRESENCE_HISTORY_DAYS * 24 * 3600;

/**
 * Members of the users shown whose presence changed after `after` (any when undefined)
 * and, unless `after` > 0 (a client that has data gets every later change, however
 * old: Zulip's rule), who connected within the last `windowSecs`.
 */
export function presenceEntries(
  app: App,
  store: RealmPresence,
  realm: RealmSnapshot,
  slim: boolean,
  after: number | undefined,
  windowSecs: number,
  now: number,
): PresenceEntries {
  const windowed = after === undefined || after <= 0;
  const map =
    windowed && windowSecs !== DEFAULT_WINDOW_SECS ? null : currentMap(app, store, realm, slim, now);
  // The map holds no user left out as too old, so it serves a client with data only
  // when such users changed no later than the client's last fetch.
  if (map && (windowed || after >= map.newestLeftOut)) {
    if (after === undefined) return { members: map.members, newest: map.newest };
    const members: Buffer[] = [];
    let newest: number | null = null;
    map.records.forEach((record, i) => {
      if (record.lastUpdateId <= after) return;
      members.push(map.members[i]!);
      newest = Math.max(newest ?? record.lastUpdateId, record.lastUpdateId);
    });
    return { members, newest };
  }
  return scan(store, realm, slim, windowed ? now - windowSecs : null, after);
}

/** Every record, checked one by one. */
function scan(
  store: RealmPresence,
  realm: RealmSnapshot,
  slim: boolean,
  since: number | null,
  after: number | undefined,
): PresenceEntries {
  const members: Buffer[] = [];
  let newest: number | null = null;
  for (const [userId, record] of store.records) {
    if (after !== undefined && record.lastUpdateId <= after) continue;
    if (since !== null && (record.lastConnectedTime === null || record.lastConnectedTime < since)) continue;
    const user = realm.user(userId);
    if (!showsPresence(user)) continue;
    members.push(presenceMember(user, record, slim));
    newest = Math.max(newest ?? record.lastUpdateId, record.lastUpdateId);
  }
  return { members, newest };
}

/** The realm's map in this format, brought up to date (or built afresh). */
function currentMap(
  app: App,
  store: RealmPresence,
  realm: RealmSnapshot,
  slim: boolean,
  now: number,
): PresenceMap {
  let pair = maps.get(store);
  if (!pair) maps.set(store, (pair = {}));
  let map = slim ? pair.modern : pair.legacy;
  const changed =
    map && map.snapshot === realm && now < map.expiresAt
      ? app.presence.changedSince(realm.id, map.version)
      : null;
  if (!map || !changed) {
    map = build(store, realm, slim, now - DEFAULT_WINDOW_SECS);
    if (slim) pair.modern = map;
    else pair.legacy = map;
    return map;
  }
  // A change makes a record recent, so it only adds or replaces a member.
  for (const userId of changed) {
    const user = realm.user(userId);
    const record = store.records.get(userId)!;
    if (!showsPresence(user)) continue;
    const member = presenceMember(user, record, slim);
    const at = map.positions.get(userId);
    if (at === undefined) {
      map.positions.set(userId, map.members.length);
      map.members.push(member);
      map.records.push(record);
    } else {
      map.members[at] = member;
      map.records[at] = record;
    }
    map.newest = Math.max(map.newest ?? record.lastUpdateId, record.lastUpdateId);
  }
  map.version = store.lastUpdateId;
  return map;
}

function build(store: RealmPresence, realm: RealmSnapshot, slim: boolean, since: number): PresenceMap {
  const positions = new Map<number, number>();
  const members: Buffer[] = [];
  const records: PresenceRecord[] = [];
  let newest: number | null = null;
  let newestLeftOut = -1;
  let oldest = Infinity;
  for (const [userId, record] of store.records) {
    const user = realm.user(userId);
    if (!showsPresence(user)) continue;
    if (record.lastConnectedTime === null || record.lastConnectedTime < since) {
      newestLeftOut = Math.max(newestLeftOut, record.lastUpdateId);
      continue;
    }
    positions.set(userId, members.length);
    members.push(presenceMember(user, record, slim));
    records.push(record);
    newest = Math.max(newest ?? record.lastUpdateId, record.lastUpdateId);
    oldest = Math.min(oldest, record.lastConnectedTime);
  }
  return {
    snapshot: realm,
    version: store.lastUpdateId,
    expiresAt: oldest + DEFAULT_WINDOW_SECS,
    newest,
    newestLeftOut,
    positions,
    members,
    records,
  };
}
