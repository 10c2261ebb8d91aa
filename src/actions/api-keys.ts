import type { App } from "../app-context.js";
import type { Tx } from "../db/tx.js";
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
  tx.afterCommit(() => app.cache.invalidateApiKeys());
  return key;
}

/** Revokes every API key of the user (regeneration, `chatd api-key --revoke-all`). */
export async function doRevokeApiKeys(app: App, tx: Tx, userId: number): Promise<number> {
  const removed = await tx.knex("api_keys").where({ user_id: userId }).delete();
  tx.afterCommit(() => app.cache.invalidateApiKeys());
  return removed;
}
