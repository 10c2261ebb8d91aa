import type { Knex } from "knex";
import { int, type DbBigInt } from "../db/rows.js";
import type { StateContext } from "../events/state.js";

export interface SavedSnippetRow {
  id: number;
  realm_id: number;
  user_id: number;
  title: string;
  content: string;
  date_created: DbBigInt;
}

export function presentSavedSnippet(row: SavedSnippetRow) {
  return { id: row.id, title: row.title, content: row.content, date_created: int(row.date_created) };
}

export async function savedSnippetsOf(knex: Knex, userId: number) {
  const rows = await knex<SavedSnippetRow>("saved_snippets").where({ user_id: userId }).orderBy("id");
  return rows.map(presentSavedSnippet);
}

/** The `saved_snippets` fetch type of /register. */
export async function fetchSavedSnippetsState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { saved_snippets: await savedSnippetsOf(ctx.knex, ctx.user.id) };
}
