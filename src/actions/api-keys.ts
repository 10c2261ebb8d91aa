import type { App } from "../app.js";
import { bool } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest, noSuchUser } from "../errors.js";
import { generateApiKey, hashApiKey } from "../lib/api-keys.js";

/**
 * Issues a new API key for the user and returns it: the only time it exists in clear.
 * Users may hold several (one per client login), so issuing never revokes others.
 */
export async function doIssueApiKey(app: App, tx: Tx, userId: number, label = ""): Promise<string> {
  const key = generateApiKey();
  await tx.knex("api_keys").insert({
    user_id: userId,
    key_hash: hashApiKey(key),
    label: label.slice(0, 100),
    date_created: tx.now,
  });
  tx.afterCommit(() => app.realms.invalidateApiKeys());
  return key;
}

/** Revokes every API key of the user (regeneration, `chatd api-key --revoke-all`). */
export async function doRevokeApiKeys(app: App, tx: Tx, userId: number): Promise<number> {
  const removed = await tx.knex("api_keys").where({ user_id: userId }).delete();
  tx.afterCommit(() => app.realms.invalidateApiKeys());
  return removed;
}

/**
 * Issues a key for a user on the operator's request (`chatd api-key`), optionally
 * revoking the user's other keys first. Deactivated users cannot use keys, so none is
 * issued for them.
 */
export async function checkIssueApiKey(
  app: App,
  realmId: number,
  userId: number,
  options: { revokeAll: boolean; label: string },
): Promise<{ key: string; revoked: number }> {
  return app.db.transaction(async (tx) => {
    const user = (await app.realms.get(tx.knex, realmId)).user(userId);
    if (!user) throw noSuchUser();
    if (!bool(user.is_active)) throw badRequest("User is deactivated");
    const revoked = options.revokeAll ? await doRevokeApiKeys(app, tx, user.id) : 0;
    return { key: await doIssueApiKey(app, tx, user.id, options.label), revoked };
  });
}
