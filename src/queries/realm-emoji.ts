import { allCustomEmoji } from "../lib/realm-emoji.js";
import type { StateContext } from "./state-context.js";

/** register's realm_emoji: every custom emoji of the realm, deactivated ones too. */
export async function fetchRealmEmojiState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { realm_emoji: await allCustomEmoji(ctx.knex, ctx.user.realm_id) };
}
