import type { Knex } from "knex";
import { badRequest } from "../errors.js";

/**
 * Bot storage (Zulip's BotStorageData): string keys and values each caller keeps for
 * itself, e.g. a counter of python zulip_bots' incrementor. Zulip keys it by the
 * caller, so people have storage too. Reads here, writes in actions/bot-storage.ts.
 */

/** Zulip's USER_STATE_SIZE_LIMIT: characters of all of a caller's keys and values. */
export const BOT_STORAGE_SIZE_LIMIT = 10_000_000;

export const keyDoesNotExist = () => badRequest("Key does not exist.");

/** The user's entries for `keys` (every entry when null); a missing key is an error. */
export async function readBotStorage(
  knex: Knex,
  userId: number,
  keys: readonly string[] | null,
): Promise<Record<string, string>> {
  // All entries, filtered here: a long key list would overflow SQLite's bound variables.
  const rows = await knex("bot_storage")
    .where({ bot_user_id: userId })
    .orderBy("key")
    .select<Array<{ key: string; value: string }>>("key", "value");
  const found = new Map(rows.map((row) => [row.key, row.value]));
  const storage: Record<string, string> = {};
  for (const key of keys ?? found.keys()) {
    const value = found.get(key);
    if (value === undefined) throw keyDoesNotExist();
    Object.defineProperty(storage, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return storage;
}
