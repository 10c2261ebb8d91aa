import { realmDomainsOf } from "../lib/realm-domains.js";
import type { StateContext } from "./state-context.js";

/** register's realm_domains: the domains of the realm's email restriction. */
export async function fetchRealmDomainsState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { realm_domains: await realmDomainsOf(ctx.knex, ctx.user.realm_id) };
}
