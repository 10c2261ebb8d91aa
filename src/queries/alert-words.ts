import { alertWordsOf } from "../lib/alert-words.js";
import type { StateContext } from "./state-context.js";

export async function fetchAlertWordsState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { alert_words: await alertWordsOf(ctx.knex, ctx.user.id) };
}
