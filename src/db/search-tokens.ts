import { stemmer } from "stemmer";

/**
 * Words as the search index sees them, shared by both backends: letters and digits,
 * case and accent folded, then Porter-stemmed, as SQLite FTS5's `porter unicode61
 * remove_diacritics 2` tokenizer does. The PostgreSQL index (search-postgres.ts) stores
 * these stems itself, so both backends find the same messages.
 */
const TOKEN = /[\p{L}\p{N}]+/gu;

export function foldToken(token: string): string {
  return token.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

export function tokenize(text: string): string[] {
  return (text.match(TOKEN) ?? []).map(foldToken);
}

export const stem = (word: string): string => stemmer(word);
