import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import { resourceNotFound } from "../errors.js";
import { presentSavedSnippet, type SavedSnippetRow } from "../presenters/saved-snippets.js";
import { savedSnippetEvents } from "../presenters/events/user-data.js";

/** Zulip's SavedSnippet.MAX_TITLE_LENGTH and the message length limit for content. */
export const MAX_SNIPPET_TITLE_LENGTH = 60;
export const MAX_SNIPPET_CONTENT_LENGTH = 10000;

/** Another user's snippet looks exactly like a missing one. */
const doesNotExist = () => resourceNotFound("Saved snippet does not exist.");

async function accessSnippet(tx: Tx, user: UserRow, snippetId: number): Promise<SavedSnippetRow> {
  const row = await tx
    .knex<SavedSnippetRow>("saved_snippets")
    .where({ id: snippetId, user_id: user.id })
    .first();
  if (!row) throw doesNotExist();
  return row;
}

/** POST /saved_snippets; title and content arrive trimmed, non-blank and bounded. */
export async function checkCreateSavedSnippet(
  app: App,
  user: UserRow,
  input: { title: string; content: string },
): Promise<number> {
  return app.db.transaction(async (tx) => {
    const row = { realm_id: user.realm_id, user_id: user.id, ...input, date_created: tx.now };
    const id = await insertReturningId(tx.knex, "saved_snippets", row);
    tx.sendEventOnCommit(user.realm_id, savedSnippetEvents.add(presentSavedSnippet({ id, ...row })), [
      user.id,
    ]);
    return id;
  });
}

export async function checkUpdateSavedSnippet(
  app: App,
  user: UserRow,
  snippetId: number,
  change: { title?: string; content?: string },
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const row = await accessSnippet(tx, user, snippetId);
    const data: Partial<SavedSnippetRow> = {};
    if (change.title !== undefined) data.title = change.title;
    if (change.content !== undefined) data.content = change.content;
    if (Object.keys(data).length === 0) return;
    await tx.knex("saved_snippets").where({ id: row.id }).update(data);
    tx.sendEventOnCommit(user.realm_id, savedSnippetEvents.update(presentSavedSnippet({ ...row, ...data })), [
      user.id,
    ]);
  });
}

export async function checkDeleteSavedSnippet(app: App, user: UserRow, snippetId: number): Promise<void> {
  await app.db.transaction(async (tx) => {
    const row = await accessSnippet(tx, user, snippetId);
    await tx.knex("saved_snippets").where({ id: row.id }).delete();
    tx.sendEventOnCommit(user.realm_id, savedSnippetEvents.remove(row.id), [user.id]);
  });
}
