import type { Knex } from "knex";

/**
 * SQLite-only full-text index of messages (FTS5), in one module so a PostgreSQL
 * counterpart (a tsvector column with a GIN index) can sit beside it. The index is
 * contentless: it stores only the token index, keyed by message ID (rowid).
 */
export const SEARCH_TABLE = "message_search";

export async function createSearchSchema(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE VIRTUAL TABLE ${SEARCH_TABLE} USING fts5(topic, content, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')`,
  );
}

export interface SearchDocument {
  id: number;
  topic: string;
  /** Plain text of the rendered message. */
  text: string;
}

export async function indexMessages(knex: Knex, docs: readonly SearchDocument[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 300) {
    const chunk = docs.slice(i, i + 300);
    await knex.raw(
      `INSERT INTO ${SEARCH_TABLE} (rowid, topic, content) VALUES ${chunk.map(() => "(?, ?, ?)").join(", ")}`,
      chunk.flatMap((d) => [d.id, d.topic, d.text]),
    );
  }
}

export async function removeFromIndex(knex: Knex, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    await knex.raw(`DELETE FROM ${SEARCH_TABLE} WHERE rowid IN (${chunk.map(() => "?").join(", ")})`, chunk);
  }
}

/** Re-indexes edited messages (content or topic changed). */
export async function reindexMessages(knex: Knex, docs: readonly SearchDocument[]): Promise<void> {
  await removeFromIndex(
    knex,
    docs.map((d) => d.id),
  );
  await indexMessages(knex, docs);
}

/** The FTS5 MATCH expression: each term quoted (no query-syntax injection), all required. */
export function toFtsQuery(terms: ReadonlyArray<readonly string[]>): string {
  return terms.map((words) => `"${words.join(" ")}"`).join(" ");
}

/** Restricts a query on messages (aliased `idColumn`) to those matching an FTS5 expression. */
export function whereMatches(qb: Knex.QueryBuilder, idColumn: string, ftsQuery: string): Knex.QueryBuilder {
  return qb.whereRaw(`${idColumn} IN (SELECT rowid FROM ${SEARCH_TABLE} WHERE ${SEARCH_TABLE} MATCH ?)`, [
    ftsQuery,
  ]);
}
