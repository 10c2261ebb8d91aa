import type { Knex } from "knex";
import { bool, type DbBool } from "../db/rows.js";
import type { StateContext } from "../events/state.js";

export interface NavigationViewRow {
  id: number;
  user_id: number;
  fragment: string;
  is_pinned: DbBool;
  /** null for built-in views. */
  name: string | null;
}

/** A navigation view; SPEC: `name` is omitted for built-in views. */
export function presentNavigationView(row: Pick<NavigationViewRow, "fragment" | "is_pinned" | "name">) {
  const view: Record<string, unknown> = { fragment: row.fragment, is_pinned: bool(row.is_pinned) };
  if (row.name !== null) view.name = row.name;
  return view;
}

export async function navigationViewsOf(knex: Knex, userId: number): Promise<Record<string, unknown>[]> {
  const rows = await knex<NavigationViewRow>("navigation_views").where({ user_id: userId }).orderBy("id");
  return rows.map(presentNavigationView);
}

/** The `navigation_views` fetch type of /register. */
export async function fetchNavigationViewsState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { navigation_views: await navigationViewsOf(ctx.knex, ctx.user.id) };
}
