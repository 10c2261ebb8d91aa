import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { activeUserIds } from "../lib/recipients.js";
import { domainError } from "../lib/realm-domains.js";
import { realmDomainsEvents } from "../presenters/events/realm-features.js";
import { realmPropertyEvent } from "../presenters/events/realm.js";
import type { ChatEvent } from "../wire/events.js";

/**
 * The domains of a realm's email restriction (Zulip's do_add_realm_domain,
 * do_change_realm_domain, do_remove_realm_domain); owners only (the endpoints say so).
 * Everyone in the realm hears of each change.
 */

const noEntry = (domain: string) => badRequest(`No entry found for domain ${domain}.`);

async function announce(app: App, tx: Tx, realmId: number, event: ChatEvent) {
  tx.sendEventOnCommit(realmId, event, activeUserIds(await app.realms.get(tx.knex, realmId)));
}

/** POST /realm/domains: Zulip's create_realm_domain; returns the new row's ID. */
export async function checkAddRealmDomain(
  app: App,
  actor: UserRow,
  rawDomain: string,
  allowSubdomains: boolean,
): Promise<{ id: number; domain: string }> {
  const domain = rawDomain.trim().toLowerCase();
  const error = domainError(domain);
  if (error) throw badRequest(`Invalid domain: ${error}`);
  return app.db.transaction(async (tx) => {
    const taken: unknown = await tx.knex("realm_domains").where({ realm_id: actor.realm_id, domain }).first();
    if (taken) throw badRequest(`The domain ${domain} is already a part of your organization.`);
    const id = await insertReturningId(tx.knex, "realm_domains", {
      realm_id: actor.realm_id,
      domain,
      allow_subdomains: allowSubdomains,
    });
    await announce(app, tx, actor.realm_id, realmDomainsEvents.add(domain, allowSubdomains));
    return { id, domain };
  });
}

/** PATCH /realm/domains/{domain}: allow_subdomains (the path's domain is matched as given). */
export async function checkChangeRealmDomain(
  app: App,
  actor: UserRow,
  domain: string,
  allowSubdomains: boolean,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const changed = await tx
      .knex("realm_domains")
      .where({ realm_id: actor.realm_id, domain })
      .update({ allow_subdomains: allowSubdomains });
    if (changed === 0) throw noEntry(domain);
    await announce(app, tx, actor.realm_id, realmDomainsEvents.change(domain, allowSubdomains));
  });
}

/**
 * DELETE /realm/domains/{domain}. Removing the last domain also turns the restriction off
 * (Zulip: with no domains it would refuse everyone), with that setting's realm event.
 */
export async function checkRemoveRealmDomain(app: App, actor: UserRow, domain: string): Promise<void> {
  await app.db.transaction(async (tx) => {
    const realmId = actor.realm_id;
    const removed = await tx.knex("realm_domains").where({ realm_id: realmId, domain }).delete();
    if (removed === 0) throw noEntry(domain);
    const left: unknown = await tx.knex("realm_domains").where({ realm_id: realmId }).first();
    const realm = await app.realms.get(tx.knex, realmId);
    if (!left && bool(realm.realm.emails_restricted_to_domains)) {
      await tx.knex("realms").where({ id: realmId }).update({ emails_restricted_to_domains: false });
      tx.afterCommit(() => app.realms.invalidate(realmId));
      tx.sendEventOnCommit(
        realmId,
        realmPropertyEvent("emails_restricted_to_domains", false),
        activeUserIds(realm),
      );
    }
    await announce(app, tx, realmId, realmDomainsEvents.remove(domain));
  });
}
