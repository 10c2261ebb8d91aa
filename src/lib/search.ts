import { toFtsQuery as ftsQuery } from "../db/search-sqlite.js";
import { foldToken, stem as stemmer, tokenize } from "../db/search-tokens.js";
import { escapeHtml } from "./html.js";

export { foldToken, tokenize };

/**
 * Full-text search terms and highlighting, independent of the database: the SQL side
 * lives in db/search-sqlite.ts (FTS5) and db/search-postgres.ts. Words are compared by their Porter stem after
 * case and accent folding, as FTS5's `porter unicode61 remove_diacritics 2` tokenizer does,
 * so "running" finds "run" and the highlight marks what the index matched.
 */
export interface SearchTerms {
  /** Each entry is one required term: a single word, or a quoted phrase of several. */
  readonly terms: ReadonlyArray<readonly string[]>;
}

/** Parses a search operand: words and "quoted phrases"; every term must match. */
export function parseSearchQuery(query: string): SearchTerms {
  const terms: string[][] = [];
  const phrase = /"([^"]*)"/g;
  let rest = query;
  for (const match of query.matchAll(phrase)) {
    const words = tokenize(match[1] ?? "");
    if (words.length > 0) terms.push(words);
    rest = rest.replace(match[0], " ");
  }
  for (const word of tokenize(rest)) terms.push([word]);
  return { terms };
}

/** The FTS5 MATCH expression: each term quoted (no query-syntax injection), all required. */
export function toFtsQuery(search: SearchTerms): string {
  return ftsQuery(search.terms);
}

const stemSet = (search: SearchTerms) => new Set(search.terms.flat().map((w) => stemmer(w)));

const HIGHLIGHT_OPEN = '<span class="highlight">';
const HIGHLIGHT_CLOSE = "</span>";

function highlightSegment(text: string, stems: ReadonlySet<string>): string {
  // Entities (&amp;) are not words; everything else that is a word may be highlighted.
  return text.replace(/&[#a-zA-Z0-9]+;|[\p{L}\p{N}]+/gu, (token) =>
    token.startsWith("&") || !stems.has(stemmer(foldToken(token)))
      ? token
      : `${HIGHLIGHT_OPEN}${token}${HIGHLIGHT_CLOSE}`,
  );
}

/** Wraps matching words in the text of rendered HTML (never inside tags) in highlight spans. */
export function highlightHtml(html: string, search: SearchTerms): string {
  const stems = stemSet(search);
  if (stems.size === 0) return html;
  return html
    .split(/(<[^>]*>)/)
    .map((part) => (part.startsWith("<") ? part : highlightSegment(part, stems)))
    .join("");
}

/** A topic for match_subject: HTML-escaped, matches highlighted. */
export function highlightText(text: string, search: SearchTerms): string {
  return highlightHtml(escapeHtml(text), search);
}

/** The text of rendered HTML, for indexing (tags dropped, common entities decoded). */
export function htmlToText(html: string): string {
  return html
    .replace(/<[^>]*>/g, " ")
    .replace(
      /&(lt|gt|quot|#x27|#39|amp);/g,
      (_, e: string) => ({ lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'", amp: "&" })[e] ?? " ",
    )
    .replace(/\s+/g, " ")
    .trim();
}
