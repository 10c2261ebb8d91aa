import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest, notFound } from "../errors.js";
import { presentNavigationView, type NavigationViewRow } from "../presenters/navigation-views.js";
import { navigationViewEvents } from "../presenters/events/user-data.js";

/** Views every client has; a user's row for one only overrides is_pinned. */
export const BUILT_IN_VIEW_FRAGMENTS: ReadonlySet<string> = new Set([
  "inbox",
  "recent",
  "feed",
  "drafts",
  "narrow/has/reaction/sender/me",
  "narrow/is/mentioned",
  "narrow/is/starred",
]);

const builtInNamed = () => badRequest("Built-in views cannot have a custom name.");
const alreadyExists = () => badRequest("Navigation view already exists.");
// SPEC: an unknown fragment is NOT_FOUND (Zulip sends 404 with code BAD_REQUEST).
const doesNotExist = () => notFound("Navigation view does not exist.");

function viewsOf(tx: Tx, userId: number) {
  return tx.knex<NavigationViewRow>("navigation_views").where({ user_id: userId });
}

export interface AddNavigationViewInput {
  fragment: string;
  isPinned: boolean;
  name?: string;
}

export async function checkAddNavigationView(
  app: App,
  user: UserRow,
  input: AddNavigationViewInput,
): Promise<void> {
  const builtIn = BUILT_IN_VIEW_FRAGMENTS.has(input.fragment);
  if (builtIn && input.name !== undefined) throw builtInNamed();
  if (!builtIn && input.name === undefined) throw badRequest("Custom views must have a valid name.");
  await app.db.transaction(async (tx) => {
    const clash = await viewsOf(tx, user.id)
      .where((q) => {
        q.where({ fragment: input.fragment });
        if (input.name !== undefined) q.orWhere({ name: input.name });
      })
      .first("id");
    if (clash) throw alreadyExists();
    const row = {
      user_id: user.id,
      fragment: input.fragment,
      is_pinned: input.isPinned,
      name: input.name ?? null,
    };
    await tx.knex("navigation_views").insert(row);
    tx.sendEventOnCommit(user.realm_id, navigationViewEvents.add(presentNavigationView(row)), [user.id]);
  });
}

export async function checkUpdateNavigationView(
  app: App,
  user: UserRow,
  fragment: string,
  change: { isPinned?: boolean; name?: string },
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const view = await viewsOf(tx, user.id).where({ fragment }).first();
    if (!view) throw doesNotExist();
    if (change.name !== undefined) {
      if (BUILT_IN_VIEW_FRAGMENTS.has(fragment)) throw builtInNamed();
      const clash = await viewsOf(tx, user.id)
        .where({ name: change.name })
        .whereNot({ id: view.id })
        .first("id");
      if (clash) throw alreadyExists();
    }
    const data: { name?: string; is_pinned?: boolean } = {};
    if (change.name !== undefined) data.name = change.name;
    if (change.isPinned !== undefined) data.is_pinned = change.isPinned;
    if (Object.keys(data).length === 0) return;
    await tx.knex("navigation_views").where({ id: view.id }).update(data);
    tx.sendEventOnCommit(user.realm_id, navigationViewEvents.update(fragment, data), [user.id]);
  });
}

export async function checkRemoveNavigationView(app: App, user: UserRow, fragment: string): Promise<void> {
  await app.db.transaction(async (tx) => {
    const removed = await viewsOf(tx, user.id).where({ fragment }).delete();
    if (removed === 0) throw doesNotExist();
    tx.sendEventOnCommit(user.realm_id, navigationViewEvents.remove(fragment), [user.id]);
  });
}
