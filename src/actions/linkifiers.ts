import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import {
  validateLinkifier,
  duplicateLinkifier,
  linkifiersOfRealm,
  type LinkifierRow,
} from "../lib/linkifiers.js";
import { activeUserIds } from "../lib/recipients.js";
import { realmLinkifiersEvent } from "../presenters/events/realm-features.js";

/**
 * Linkifiers (Zulip's do_add_linkifier, do_update_linkifier, do_remove_linkifier and
 * check_reorder_linkifiers); administrators only (the endpoints say so). Every change
 * sends the whole list to everyone.
 */

const notFound = () => badRequest("Linkifier not found.");

async function notifyLinkifiers(app: App, tx: Tx, realmId: number): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, realmId);
  const linkifiers = await linkifiersOfRealm(tx.knex, realmId);
  tx.sendEventOnCommit(realmId, realmLinkifiersEvent(linkifiers), activeUserIds(snapshot));
}

async function validatePatternFree(tx: Tx, realmId: number, pattern: string, exceptId?: number) {
  const taken = await tx.knex<LinkifierRow>("linkifiers").where({ realm_id: realmId, pattern }).first();
  if (taken && taken.id !== exceptId) throw duplicateLinkifier();
}

export async function checkAddLinkifier(
  app: App,
  user: UserRow,
  pattern: string,
  urlTemplate: string,
): Promise<number> {
  validateLinkifier(pattern, urlTemplate);
  return app.db.transaction(async (tx) => {
    await validatePatternFree(tx, user.realm_id, pattern);
    const last = await tx
      .knex("linkifiers")
      .where({ realm_id: user.realm_id })
      .max<{ max: number | null }>("order as max")
      .first();
    const id = await insertReturningId(tx.knex, "linkifiers", {
      realm_id: user.realm_id,
      pattern,
      url_template: urlTemplate,
      order: last?.max === null || last?.max === undefined ? 0 : last.max + 1,
    });
    await notifyLinkifiers(app, tx, user.realm_id);
    return id;
  });
}

export async function checkUpdateLinkifier(
  app: App,
  user: UserRow,
  id: number,
  pattern: string,
  urlTemplate: string,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const row = await tx.knex<LinkifierRow>("linkifiers").where({ realm_id: user.realm_id, id }).first();
    if (!row) throw notFound();
    validateLinkifier(pattern, urlTemplate);
    await validatePatternFree(tx, user.realm_id, pattern, id);
    await tx.knex("linkifiers").where({ id }).update({ pattern, url_template: urlTemplate });
    await notifyLinkifiers(app, tx, user.realm_id);
  });
}

export async function checkRemoveLinkifier(app: App, user: UserRow, id: number): Promise<void> {
  await app.db.transaction(async (tx) => {
    const removed = await tx.knex("linkifiers").where({ realm_id: user.realm_id, id }).delete();
    if (removed === 0) throw notFound();
    await notifyLinkifiers(app, tx, user.realm_id);
  });
}

export async function checkReorderLinkifiers(
  app: App,
  user: UserRow,
  orderedIds: readonly number[],
): Promise<void> {
  const wanted = new Set(orderedIds);
  if (wanted.size < orderedIds.length) {
    throw badRequest("The ordered list must not contain duplicated linkifiers");
  }
  await app.db.transaction(async (tx) => {
    const ids = await tx.knex("linkifiers").where({ realm_id: user.realm_id }).pluck<number[]>("id");
    if (ids.length !== wanted.size || ids.some((id) => !wanted.has(id))) {
      throw badRequest("The ordered list must enumerate all existing linkifiers exactly once");
    }
    for (const [order, id] of orderedIds.entries()) {
      await tx.knex("linkifiers").where({ id }).update({ order });
    }
    await notifyLinkifiers(app, tx, user.realm_id);
  });
}
