import { hasCapability } from "../wire/events.js";
import { linkifiersOfRealm } from "../lib/linkifiers.js";
import { playgroundsOfRealm } from "../lib/playgrounds.js";
import type { StateContext } from "./state-context.js";

/**
 * register's realm_linkifiers: empty for clients without linkifier_url_template, as
 * Zulip's is (they would misread url_template). The legacy realm_filters is always empty.
 */
export async function fetchRealmLinkifiersState(ctx: StateContext): Promise<Record<string, unknown>> {
  if (!hasCapability(ctx.options, "linkifier_url_template")) return { realm_linkifiers: [] };
  return { realm_linkifiers: await linkifiersOfRealm(ctx.knex, ctx.user.realm_id) };
}

/** register's realm_playgrounds. */
export async function fetchRealmPlaygroundsState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { realm_playgrounds: await playgroundsOfRealm(ctx.knex, ctx.user.realm_id) };
}
