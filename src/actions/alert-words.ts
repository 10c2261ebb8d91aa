import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { bulkInsert } from "../db/insert.js";
import { alertWordsOf } from "../lib/alert-words.js";
import { pythonStrip } from "../lib/message-content.js";
import { alertWordsEvent } from "../presenters/events/user-data.js";

/** Zulip's AlertWord.MAX_ALERT_WORD_LENGTH (checked before the words are stripped). */
export const MAX_ALERT_WORD_LENGTH = 100;

/**
 * Alert words are case-insensitive: adding one the user has in any case changes nothing,
 * and removing one removes it in every case. Every change, even none, sends the user the
 * whole list (Zulip's notify_alert_words). Returns that list.
 */
export async function checkAddAlertWords(
  app: App,
  user: UserRow,
  words: readonly string[],
): Promise<string[]> {
  return app.db.transaction(async (tx) => {
    const known = new Set((await alertWordsOf(tx.knex, user.id)).map((w) => w.toLowerCase()));
    // Among new words equal but for case, the last spelling is kept (Zulip's word_dict).
    const fresh = new Map<string, string>();
    for (const word of words.map(pythonStrip)) {
      if (word === "" || known.has(word.toLowerCase())) continue;
      fresh.set(word.toLowerCase(), word);
    }
    await bulkInsert(
      tx.knex,
      "alert_words",
      ["user_id", "word"],
      [...fresh.values()].map((word) => [user.id, word]),
    );
    const after = await alertWordsOf(tx.knex, user.id);
    tx.sendEventOnCommit(user.realm_id, alertWordsEvent(after), [user.id]);
    return after;
  });
}

export async function checkRemoveAlertWords(
  app: App,
  user: UserRow,
  words: readonly string[],
): Promise<string[]> {
  return app.db.transaction(async (tx) => {
    const unwanted = new Set(words.map((w) => w.toLowerCase()));
    const gone = (await alertWordsOf(tx.knex, user.id)).filter((w) => unwanted.has(w.toLowerCase()));
    if (gone.length > 0)
      await tx.knex("alert_words").where("user_id", user.id).whereIn("word", gone).delete();
    const after = await alertWordsOf(tx.knex, user.id);
    tx.sendEventOnCommit(user.realm_id, alertWordsEvent(after), [user.id]);
    return after;
  });
}
