import type { Knex } from "knex";
import { presentSavedSnippet, type SavedSnippetRow } from "../presenters/saved-snippets.js";
import type { StateContext } from "./state-context.js";

export async function savedSnippetsOf(knex: Knex, userId: number) {
  const rows = await knex<SavedSnippetRow>("saved_snippets").where({ user_id: userId }).orderBy("id");
  return rows.map(presentSavedSnippet);
}

/** The `saved_snippets` fetch type of /register. */
export async function fetchSavedSnippetsState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { saved_snippets: await savedSnippetsOf(ctx.knex, ctx.user.id) };
}
