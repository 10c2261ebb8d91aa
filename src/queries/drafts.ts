import type { Knex } from "knex";
import { presentDraft, type DraftRow } from "../presenters/drafts.js";
import type { StateContext } from "./state-context.js";

/** Zulip's MAX_DRAFTS_IN_REGISTER_RESPONSE. */
export const MAX_DRAFTS_IN_REGISTER = 1000;

/** GET /drafts: every draft, least recently edited first (as Zulip's fetch_drafts orders them). */
export async function draftsOf(knex: Knex, userId: number) {
  const rows = await knex<DraftRow>("drafts")
    .where({ user_id: userId })
    .orderBy([{ column: "last_edit_time" }, { column: "id" }]);
  return rows.map(presentDraft);
}

/** The `drafts` fetch type of /register: the most recently edited drafts first. */
export async function fetchDraftsState(ctx: StateContext): Promise<Record<string, unknown>> {
  const rows = await ctx
    .knex<DraftRow>("drafts")
    .where({ user_id: ctx.user.id })
    .orderBy([
      { column: "last_edit_time", order: "desc" },
      { column: "id", order: "desc" },
    ])
    .limit(MAX_DRAFTS_IN_REGISTER);
  return { drafts: rows.map(presentDraft) };
}
