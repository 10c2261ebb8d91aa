import { bool, type DbBool } from "../db/rows.js";
import type { WireNavigationView } from "../wire/records.js";

export interface NavigationViewRow {
  id: number;
  user_id: number;
  fragment: string;
  is_pinned: DbBool;
  /** null for built-in views. */
  name: string | null;
}

/** A navigation view; SPEC: `name` is omitted for built-in views. */
export function presentNavigationView(
  row: Pick<NavigationViewRow, "fragment" | "is_pinned" | "name">,
): WireNavigationView {
  const view: WireNavigationView = { fragment: row.fragment, is_pinned: bool(row.is_pinned) };
  if (row.name !== null) view.name = row.name;
  return view;
}
