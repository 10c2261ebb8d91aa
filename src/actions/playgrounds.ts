import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { pythonStrip } from "../lib/message-content.js";
import { validatePlayground, duplicatePlayground, playgroundsOfRealm } from "../lib/playgrounds.js";
import { activeUserIds } from "../lib/recipients.js";
import { realmPlaygroundsEvent } from "../presenters/events/realm-features.js";

/**
 * Code playgrounds (Zulip's do_add_realm_playground, do_remove_realm_playground);
 * administrators only (the endpoints say so). Every change sends the whole list.
 */

async function notifyPlaygrounds(app: App, tx: Tx, realmId: number): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, realmId);
  const playgrounds = await playgroundsOfRealm(tx.knex, realmId);
  tx.sendEventOnCommit(realmId, realmPlaygroundsEvent(playgrounds), activeUserIds(snapshot));
}

export async function checkAddPlayground(
  app: App,
  user: UserRow,
  fields: { name: string; pygments_language: string; url_template: string },
): Promise<number> {
  const name = pythonStrip(fields.name);
  const language = pythonStrip(fields.pygments_language);
  const urlTemplate = pythonStrip(fields.url_template);
  validatePlayground(language, urlTemplate);
  return app.db.transaction(async (tx) => {
    const taken: unknown = await tx
      .knex("realm_playgrounds")
      .where({ realm_id: user.realm_id, pygments_language: language, name })
      .first();
    if (taken) throw duplicatePlayground();
    const id = await insertReturningId(tx.knex, "realm_playgrounds", {
      realm_id: user.realm_id,
      name,
      pygments_language: language,
      url_template: urlTemplate,
    });
    await notifyPlaygrounds(app, tx, user.realm_id);
    return id;
  });
}

export async function checkRemovePlayground(app: App, user: UserRow, id: number): Promise<void> {
  await app.db.transaction(async (tx) => {
    const removed = await tx.knex("realm_playgrounds").where({ realm_id: user.realm_id, id }).delete();
    if (removed === 0) throw badRequest("Invalid playground");
    await notifyPlaygrounds(app, tx, user.realm_id);
  });
}
