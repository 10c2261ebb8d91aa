import type { Knex } from "knex";
import type { ChatEvent, EventRecipients } from "../wire/events.js";
import { recipientsFromJson, recipientsToJson, type PendingEvent } from "./outbox.js";

/**
 * The event log of several server processes (migration 20261127000000_event_log): what
 * each commit published, in commit order, for every process to apply. Written in the
 * committing transaction, so an entry exists exactly when its change does.
 */

/** A cache and the realm whose entry a writer dropped; ["*"] drops every cache. */
export type Invalidation = readonly [cache: string, realmId: number] | readonly ["*"];

export interface LogEntry {
  id: number;
  realmId: number;
  event: ChatEvent | null;
  recipients: EventRecipients;
  invalidates: Invalidation[];
  deletedQueueId: string | null;
  origin: string;
}

interface LogRow {
  id: number | string;
  realm_id: number;
  event: string | null;
  recipients: string | null;
  invalidates: string | null;
  deleted_queue_id: string | null;
  origin: string;
}

/** Log rows per INSERT statement (5 values each). */
const INSERT_CHUNK = 500;

export async function appendEvents(
  knex: Knex,
  events: readonly PendingEvent[],
  origin: string,
  now: number,
): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map(([realmId, event, recipients]) => ({
    realm_id: realmId,
    event: JSON.stringify(event),
    recipients: recipientsToJson(recipients),
    origin,
    created_at: now,
  }));
  // Multi-row INSERTs number rows in the order of their VALUES on SQLite and PostgreSQL;
  // chunks keep each statement under every driver's limit on bound values.
  for (let from = 0; from < rows.length; from += INSERT_CHUNK) {
    await knex("event_log").insert(rows.slice(from, from + INSERT_CHUNK));
  }
}

/**
 * One server process alone (no `--workers`): nobody tails the log, so what admin
 * commands wrote there (their cache invalidations) goes. A read first, so an empty log
 * costs no write.
 */
export async function clearUnreadLog(knex: Knex): Promise<void> {
  const any = await knex("event_log").first<{ id: number } | undefined>("id");
  if (any) await knex("event_log").delete();
}

export async function appendInvalidations(
  knex: Knex,
  invalidates: readonly Invalidation[],
  origin: string,
  now: number,
): Promise<void> {
  if (invalidates.length === 0) return;
  await knex("event_log").insert({
    realm_id: 0,
    invalidates: JSON.stringify(invalidates),
    origin,
    created_at: now,
  });
}

export async function appendQueueDeletion(
  knex: Knex,
  realmId: number,
  queueId: string,
  origin: string,
  now: number,
): Promise<void> {
  await knex("event_log").insert({ realm_id: realmId, deleted_queue_id: queueId, origin, created_at: now });
}

/** The newest entry's ID (0: none). */
export async function newestLogId(knex: Knex): Promise<number> {
  const row = await knex("event_log").max<{ id: number | string | null }>("id as id").first();
  return Number(row?.id ?? 0);
}

/** Entries after `afterId`, up to `throughId` if given, oldest first. */
export async function readLog(
  knex: Knex,
  afterId: number,
  limit: number,
  throughId?: number,
): Promise<LogEntry[]> {
  let query = knex<LogRow>("event_log").where("id", ">", afterId);
  if (throughId !== undefined) query = query.andWhere("id", "<=", throughId);
  const rows = await query.orderBy("id").limit(limit).select<LogRow[]>("*");
  return rows.map((row) => ({
    id: Number(row.id),
    realmId: row.realm_id,
    event: row.event === null ? null : (JSON.parse(row.event) as ChatEvent),
    recipients: row.recipients === null ? [] : recipientsFromJson(row.recipients),
    invalidates: row.invalidates === null ? [] : (JSON.parse(row.invalidates) as Invalidation[]),
    deletedQueueId: row.deleted_queue_id,
    origin: row.origin,
  }));
}

/** Drops entries up to `throughId` (every process has applied them, no queue resumes before). */
export async function pruneLog(knex: Knex, throughId: number): Promise<number> {
  return knex("event_log").where("id", "<=", throughId).delete();
}
