import type { Knex } from "knex";
import type { SearchDocument } from "./search-sqlite.js";
import { stem, tokenize } from "./search-tokens.js";

/**
 * PostgreSQL's counterpart of search-sqlite.ts: one tsvector per message with a GIN
 * index. PostgreSQL's own text-search configurations stem and drop stop words unlike
 * FTS5's porter tokenizer, so the documents and queries are built here from the same
 * stems (search-tokens.ts) and PostgreSQL only stores and matches them: both backends
 * find the same messages, and the highlighting (lib/search.ts) marks what matched.
 */
export const SEARCH_TABLE = "message_search";

/** Positions above this are clamped by PostgreSQL; phrases past it still match words. */
const MAX_POSITION = 16383;

/**
 * PostgreSQL refuses lexemes over 2046 bytes: longer words are indexed and searched by
 * their first 500 characters (at most 2000 bytes), the same on both sides.
 */
const lexeme = (word: string) => Array.from(stem(word)).slice(0, 500).join("");

export async function createSearchSchema(knex: Knex): Promise<void> {
  await knex.schema.createTable(SEARCH_TABLE, (t) => {
    t.integer("message_id").primary();
    t.specificType("document", "tsvector").notNullable();
  });
  await knex.raw(`CREATE INDEX message_search_document ON ${SEARCH_TABLE} USING GIN (document)`);
}

/**
 * A tsvector literal: each stem with its positions. The topic comes first, then the
 * content one position further on, so a phrase never spans topic and content (FTS5
 * matches a phrase within one column). Stems are letters and digits only: no quoting.
 */
export function toTsVector(doc: Pick<SearchDocument, "topic" | "text">): string {
  const positions = new Map<string, string[]>();
  let position = 0;
  // Topic words carry weight A, so a query can ask for the topic alone ('word':A).
  const add = (text: string, weight: string) => {
    for (const word of tokenize(text)) {
      position = Math.min(position + 1, MAX_POSITION);
      const key = lexeme(word);
      const list = positions.get(key);
      if (list) list.push(`${position}${weight}`);
      else positions.set(key, [`${position}${weight}`]);
    }
    position = Math.min(position + 1, MAX_POSITION);
  };
  add(doc.topic, "A");
  add(doc.text, "");
  return [...positions].map(([key, list]) => `'${key}':${[...new Set(list)].join(",")}`).join(" ");
}

/** A tsquery: every term required; a phrase's stems adjacent and in order. */
export function toTsQuery(
  terms: ReadonlyArray<readonly string[]>,
  options: { topicOnly?: boolean } = {},
): string {
  const weight = options.topicOnly ? ":A" : "";
  return terms.map((words) => `(${words.map((w) => `'${lexeme(w)}'${weight}`).join(" <-> ")})`).join(" & ");
}

export async function indexMessages(knex: Knex, docs: readonly SearchDocument[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 300) {
    const chunk = docs.slice(i, i + 300);
    await knex.raw(
      `INSERT INTO ${SEARCH_TABLE} (message_id, document) VALUES ${chunk.map(() => "(?, ?::tsvector)").join(", ")}`,
      chunk.flatMap((d) => [d.id, toTsVector(d)]),
    );
  }
}

export async function removeFromIndex(knex: Knex, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await knex(SEARCH_TABLE)
      .whereIn("message_id", ids.slice(i, i + 500))
      .delete();
  }
}

export async function reindexMessages(knex: Knex, docs: readonly SearchDocument[]): Promise<void> {
  await removeFromIndex(
    knex,
    docs.map((d) => d.id),
  );
  await indexMessages(knex, docs);
}

/** Restricts a query on messages (aliased `idColumn`) to those matching all `terms`. */
export function whereMatches(
  qb: Knex.QueryBuilder,
  idColumn: string,
  terms: ReadonlyArray<readonly string[]>,
): Knex.QueryBuilder {
  return qb.whereRaw(`${idColumn} IN (SELECT message_id FROM ${SEARCH_TABLE} WHERE document @@ ?::tsquery)`, [
    toTsQuery(terms),
  ]);
}
