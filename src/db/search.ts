import type { Knex } from "knex";
import { isPostgres } from "./dialect.js";
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

export const reindexMessages = (knex: Knex, docs: readonly SearchDocument[]) =>
  backend(knex).reindexMessages(knex, docs);

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
