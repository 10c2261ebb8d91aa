import type { Knex } from "knex";
import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import type { QueueOptions } from "../events/types.js";
import type { RealmSnapshot } from "../world/realm.js";

export interface StateContext {
  app: App;
  /** Read through this (the consistent-read handle), never app.knex directly. */
  knex: Knex;
  user: UserRow;
  realm: RealmSnapshot;
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
export const wantsType = (ctx: StateContext, type: string): boolean =>
  ctx.fetchTypes === null || ctx.fetchTypes.includes(type);
