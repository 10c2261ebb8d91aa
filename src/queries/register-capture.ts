import type { App } from "../app.js";
import { loadWorld } from "../cache/world.js";
import type { UserRow } from "../db/rows.js";
import { fetchPresenceState } from "./presence.js";
import { wantsType, type CapturedState, type StateContext, type StateFetcher } from "./state-context.js";

/**
 * /register's step inside the write lock (Db.snapshotRead), with no commit between it and
 * the pinning of the read snapshot: everything the state fetchers read that is not in that
 * snapshot, taken as it is now, so that the fetchers can run after the lock is released
 * while commits go on.
 *
 * Audit of what the fetchers consult besides the pinned transaction:
 * - app.realms (RealmSnapshot, replaced on change) and app.channels (ChannelSnapshot,
 *   replaced on change): the snapshots themselves are captured. Loading them later would
 *   be wrong twice over: a later snapshot holds commits the queue also gets, and a load
 *   through the pinned transaction started after an invalidation would be stored in the
 *   cache although it predates the change (the caches' generation check cannot tell).
 * - app.userState: the realm's profile map (replaced on change) is captured; the user's
 *   newest message ID is taken only if already cached (a miss reads the snapshot).
 * - app.presence: its records map changes in place (under the lock: presence actions run
 *   in Db.exclusive or as commit hooks), so the `presence` fetch type, in-memory and
 *   cheap, is computed here, and partial subscriber lists get a copy of the records.
 * - Everything else is read through the pinned transaction, or is constant (config,
 *   integrations) or derived per snapshot (realm-users-json.ts, presence-map.ts).
 */

/** Fetch types computed whole inside the lock: in-memory sources with no database snapshot. */
const LOCKED_FETCHERS: Readonly<Record<string, StateFetcher>> = { presence: fetchPresenceState };

export interface RegisterCapture extends CapturedState {
  /** The user as the snapshot sees them (a change since authentication is in the state). */
  user: UserRow;
  /** States of LOCKED_FETCHERS' types already computed, by fetch type. */
  precomputed: ReadonlyMap<string, Record<string, unknown>>;
}

/** Inside the lock: the in-memory sources as of the pinned snapshot. */
export async function captureRegisterSources(
  app: App,
  authenticated: UserRow,
  context: Omit<StateContext, keyof CapturedState | "app" | "knex" | "user">,
): Promise<RegisterCapture> {
  // Cache misses load through the read pool, inside the lock, and are cached as usual.
  const world = await loadWorld(app, app.knex, authenticated.realm_id);
  const realm = world.realm;
  const user = realm.user(authenticated.id) ?? authenticated;
  const profiles = await app.userState.realmProfiles(app.knex, realm.id);
  const presenceRecords =
    context.includeSubscribers === "partial" && wantsType(context, "subscription")
      ? new Map((await app.presence.realm(realm.id)).records)
      : null;
  const captured: CapturedState = {
    realm,
    world,
    profiles,
    maxMessageId: app.userState.knownMaxMessageId(user.id) ?? null,
    presenceRecords,
  };
  const precomputed = new Map<string, Record<string, unknown>>();
  for (const [type, fetcher] of Object.entries(LOCKED_FETCHERS)) {
    // They read no database: the read pool is given only to satisfy the type.
    if (wantsType(context, type))
      precomputed.set(type, await fetcher({ ...context, ...captured, app, knex: app.knex, user }));
  }
  return { ...captured, user, precomputed };
}
