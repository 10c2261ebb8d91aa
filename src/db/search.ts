import type { Knex } from "knex";
import { isPostgres } from "./dialect.js";
import { bulkInsert } from "./insert.js";
import * as postgres from "./search-postgres.js";
import * as sqlite from "./search-sqlite.js";
import type { SearchDocument } from "./search-sqlite.js";

/** The message search index on whichever database `knex` is: FTS5 or a PostgreSQL tsvector. */
const backend = (knex: Knex) => (isPostgres(knex) ? postgres : sqlite);

export type { SearchDocument };

export const createSearchSchema = (knex: Knex) => backend(knex).createSearchSchema(knex);

export const indexMessages = (knex: Knex, docs: readonly SearchDocument[]) =>
  backend(knex).indexMessages(knex, docs);

export const removeFromIndex = (knex: Knex, ids: readonly number[]) =>
  backend(knex).removeFromIndex(knex, ids);

/** Re-indexes messages (edited, or maybe indexed already): drops their entries, then indexes them. */
export async function reindexMessages(knex: Knex, docs: readonly SearchDocument[]): Promise<void> {
  await removeFromIndex(
    knex,
    docs.map((d) => d.id),
  );
  await indexMessages(knex, docs);
}

/** Messages sent but not yet indexed (see migrations/20261128010000_search_pending.ts). */
export const SEARCH_PENDING_TABLE = "search_pending";

/** Notes messages to index after their transaction commits. */
export async function markForIndexing(knex: Knex, ids: readonly number[]): Promise<void> {
  await bulkInsert(
    knex,
    SEARCH_PENDING_TABLE,
    ["message_id"],
    ids.map((id) => [id]),
  );
}

/**
 * Takes up to `limit` of the oldest messages waiting to be indexed, in a write
 * transaction: deleted in the same statement, so two processes never take the same ones
 * (on PostgreSQL the second waits on the rows, then finds them gone).
 */
export async function takeForIndexing(trx: Knex.Transaction, limit: number): Promise<number[]> {
  const result: unknown = await trx.raw(
    `DELETE FROM ${SEARCH_PENDING_TABLE} WHERE message_id IN (SELECT message_id FROM ${SEARCH_PENDING_TABLE} ORDER BY message_id LIMIT ?) RETURNING message_id`,
    [limit],
  );
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{
    message_id: number;
  }>;
  return rows.map((row) => row.message_id).sort((a, b) => a - b);
}

/**
 * Restricts a query on messages (aliased `idColumn`) to those matching every term (a
 * word, or a phrase of several); `knex` tells which database the query is for.
 */
export function whereMatches(
  knex: Knex,
  qb: Knex.QueryBuilder,
  idColumn: string,
  terms: ReadonlyArray<readonly string[]>,
): Knex.QueryBuilder {
  if (isPostgres(knex)) return postgres.whereMatches(qb, idColumn, terms);
  return sqlite.whereMatches(qb, idColumn, sqlite.toFtsQuery(terms));
}
