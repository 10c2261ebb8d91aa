import type { Knex } from "knex";
import { codePointLength } from "../params.js";

/**
 * A bot's key-value entries: its storage (bot_storage) and its configuration
 * (bot_config_data). Each is limited in characters of all its keys and values, counted
 * as Zulip counts them; the writes in actions/bot-storage.ts and bot-config.ts check
 * their limit with `entrySizes` before `upsertBotEntries`.
 */

export type BotEntryTable = "bot_storage" | "bot_config_data";

export type BotEntries = ReadonlyArray<readonly [string, string]>;

/** The bot's total size now, and after each of `entries` is written in turn. */
export async function entrySizes(
  knex: Knex,
  table: BotEntryTable,
  botId: number,
  entries: BotEntries,
): Promise<{ stored: number; after: number[] }> {
  const rows = await knex(table)
    .where({ bot_user_id: botId })
    .select<Array<{ key: string; size: number }>>("key", knex.raw("length(key) + length(value) as size"));
  const sizeOf = new Map(rows.map((row) => [row.key, Number(row.size)]));
  let total = 0;
  for (const size of sizeOf.values()) total += size;
  const stored = total;
  const after = entries.map(([key, value]) => {
    const size = codePointLength(key) + codePointLength(value);
    total += size - (sizeOf.get(key) ?? 0);
    sizeOf.set(key, size);
    return total;
  });
  return { stored, after };
}

/** Writes the entries in bulk (a key given twice keeps its last value), replacing stored values. */
export async function upsertBotEntries(
  knex: Knex,
  table: BotEntryTable,
  botId: number,
  entries: BotEntries,
): Promise<void> {
  const rows = [...new Map(entries).entries()].map(([key, value]) => ({ bot_user_id: botId, key, value }));
  // In slices: SQLite limits the bound variables of one statement.
  for (let i = 0; i < rows.length; i += 500) {
    await knex(table)
      .insert(rows.slice(i, i + 500))
      .onConflict(["bot_user_id", "key"])
      .merge(["value"]);
  }
}
