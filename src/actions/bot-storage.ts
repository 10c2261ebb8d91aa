import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { entrySizes, upsertBotEntries } from "../lib/bot-entries.js";
import { BOT_STORAGE_SIZE_LIMIT, keyDoesNotExist } from "../lib/bot-storage.js";

/**
 * PUT /bot_storage: sets the caller's entries, all or none. The storage may hold
 * BOT_STORAGE_SIZE_LIMIT characters of keys and values in all (Zulip's rule and words).
 * Zulip keys storage by the caller, bot or person, so anyone has their own.
 */
export async function checkSetBotStorage(
  app: App,
  user: UserRow,
  entries: ReadonlyArray<readonly [string, string]>,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const { stored, after } = await entrySizes(tx.knex, "bot_storage", user.id, entries);
    const total = after.at(-1) ?? stored;
    if (total > BOT_STORAGE_SIZE_LIMIT) {
      throw badRequest(
        `Request exceeds storage limit by ${total - BOT_STORAGE_SIZE_LIMIT} characters. ` +
          `The limit is ${BOT_STORAGE_SIZE_LIMIT} characters.`,
      );
    }
    await upsertBotEntries(tx.knex, "bot_storage", user.id, entries);
  });
}

/** DELETE /bot_storage: removes the given keys (all when null); one missing key removes none. */
export async function checkRemoveBotStorage(
  app: App,
  user: UserRow,
  keys: readonly string[] | null,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const stored = await tx.knex("bot_storage").where({ bot_user_id: user.id }).pluck<string[]>("key");
    const existing = new Set(stored);
    const doomed = keys ?? stored;
    // Zulip compares counts, so a key named twice counts as missing too.
    if (new Set(doomed.filter((key) => existing.has(key))).size < doomed.length) throw keyDoesNotExist();
    for (let i = 0; i < doomed.length; i += 500) {
      await tx
        .knex("bot_storage")
        .where({ bot_user_id: user.id })
        .whereIn("key", doomed.slice(i, i + 500))
        .delete();
    }
  });
}
