import type { Knex } from "knex";
import type { App } from "../app.js";
import type { PresenceRecord } from "../cache/presence-store.js";
import type { UserRow } from "../db/rows.js";
import type { QueueOptions } from "../wire/events.js";
import type { ProfileData } from "../lib/custom-profile-fields.js";
import type { ChannelWorld } from "../permissions/channel-access.js";
import type { RealmSnapshot } from "../world/realm.js";

/**
 * What /register read from memory inside the write lock (queries/register-capture.ts):
 * caches and stores that commits change in place or replace, taken as they were when
 * the database snapshot was pinned. Fetchers read these, never app.realms, app.channels,
 * app.userState or app.presence, which may already hold later commits.
 */
export interface CapturedState {
  realm: RealmSnapshot;
  /** The realm's channels as of the snapshot. */
  world: ChannelWorld;
  /** Everyone's custom profile values (the user-state cache's map). */
  profiles: ReadonlyMap<number, ProfileData>;
  /** The user's newest message ID if the user-state cache knew it; null: read it from the snapshot. */
  maxMessageId: number | null;
  /** A copy of the realm's presence records, for partial subscriber lists; null when not needed. */
  presenceRecords: ReadonlyMap<number, PresenceRecord> | null;
}

export interface StateContext extends CapturedState {
  app: App;
  /** Read through this (the pinned read transaction), never app.knex directly. */
  knex: Knex;
  user: UserRow;
  options: QueueOptions;
  /** include_subscribers: true, false or "partial". */
  includeSubscribers: boolean | "partial";
  /** presence_history_limit_days: how far back `presences` reaches (default 14 days). */
  presenceHistoryLimitDays?: number;
  /** The fetch types asked for by name (fetch_event_types, else event_types); null: all. */
  fetchTypes: readonly string[] | null;
}

export type StateFetcher = (ctx: StateContext) => Promise<Record<string, unknown>>;

/** Was this fetch type requested (or were all types, by omission)? */
export const wantsType = (ctx: Pick<StateContext, "fetchTypes">, type: string): boolean =>
  ctx.fetchTypes === null || ctx.fetchTypes.includes(type);
