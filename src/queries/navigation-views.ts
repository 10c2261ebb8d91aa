import type { Knex } from "knex";
import { presentNavigationView, type NavigationViewRow } from "../presenters/navigation-views.js";
import type { StateContext } from "./state-context.js";

export async function navigationViewsOf(knex: Knex, userId: number): Promise<Record<string, unknown>[]> {
  const rows = await knex<NavigationViewRow>("navigation_views").where({ user_id: userId }).orderBy("id");
  return rows.map(presentNavigationView);
}

/** The `navigation_views` fetch type of /register. */
export async function fetchNavigationViewsState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { navigation_views: await navigationViewsOf(ctx.knex, ctx.user.id) };
}
