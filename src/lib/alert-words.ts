import type { Knex } from "knex";

/**
 * Alert words: which users a message alerts (the has_alert_word flag). As in Zulip's
 * AlertWordNotificationProcessor, the Markdown source is lowercased and searched for
 * every word of the realm at once (Aho-Corasick, so a send costs one pass over its
 * content whatever the number of words); a match counts only between the characters
 * Zulip allows around a word, so words inside words, URLs or paths do not alert.
 */

/** Zulip's allowed_before_punctuation (the start of the message counts too). */
const BEFORE: ReadonlySet<string> = new Set([" ", "\n", "(", '"', ".", ",", "'", ";", "[", "*", "`", ">"]);
/** Zulip's allowed_after_punctuation (the end of the message counts too). */
const AFTER: ReadonlySet<string> = new Set([
  " ",
  "\n",
  ")",
  '"',
  "?",
  ":",
  ".",
  ",",
  "'",
  ";",
  "]",
  "!",
  "*",
  "`",
]);

export interface AlertWordRow {
  user_id: number;
  word: string;
}

/** The alert words of a realm, compiled for matching. */
export class AlertWordMatcher {
  /** Per trie node: its children by character, its failure link, the words ending here. */
  private readonly children: Array<Map<string, number>> = [new Map<string, number>()];
  private readonly fail: number[] = [0];
  private readonly output: number[][] = [[]];
  /** Per word (lowercased): its length and the users who chose it. */
  private readonly words: Array<{ length: number; userIds: number[] }> = [];

  constructor(rows: readonly AlertWordRow[]) {
    const byWord = new Map<string, number[]>();
    for (const { user_id, word } of rows) {
      const key = word.toLowerCase();
      if (key === "") continue;
      const users = byWord.get(key);
      if (users) users.push(user_id);
      else byWord.set(key, [user_id]);
    }
    for (const [word, userIds] of byWord) this.add(word, userIds);
    this.link();
  }

  get isEmpty(): boolean {
    return this.words.length === 0;
  }

  /** The users whose alert words the content contains. */
  usersAlerted(content: string): Set<number> {
    const alerted = new Set<number>();
    if (this.isEmpty) return alerted;
    const text = content.toLowerCase();
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      while (state !== 0 && !this.children[state]!.has(ch)) state = this.fail[state]!;
      state = this.children[state]!.get(ch) ?? 0;
      for (const index of this.output[state]!) {
        const word = this.words[index]!;
        const start = i - word.length + 1;
        if (start > 0 && !BEFORE.has(text[start - 1]!)) continue;
        if (i + 1 < text.length && !AFTER.has(text[i + 1]!)) continue;
        for (const userId of word.userIds) alerted.add(userId);
      }
    }
    return alerted;
  }

  private add(word: string, userIds: number[]): void {
    let node = 0;
    for (const ch of word.split("")) {
      let next = this.children[node]!.get(ch);
      if (next === undefined) {
        next = this.children.length;
        this.children.push(new Map<string, number>());
        this.fail.push(0);
        this.output.push([]);
        this.children[node]!.set(ch, next);
      }
      node = next;
    }
    this.output[node]!.push(this.words.length);
    this.words.push({ length: word.length, userIds });
  }

  /** Failure links, breadth first; each node also reports the words of its suffixes. */
  private link(): void {
    const queue = [...this.children[0]!.values()];
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      for (const [ch, child] of this.children[node]!) {
        let fallback = this.fail[node]!;
        while (fallback !== 0 && !this.children[fallback]!.has(ch)) fallback = this.fail[fallback]!;
        const target = this.children[fallback]!.get(ch);
        this.fail[child] = target !== undefined && target !== child ? target : 0;
        this.output[child]!.push(...this.output[this.fail[child]]!);
        queue.push(child);
      }
    }
  }
}

/** A realm's alert words (deactivated users' too: they are never recipients). */
export async function loadRealmAlertWords(knex: Knex, realmId: number): Promise<AlertWordRow[]> {
  return knex("alert_words as aw")
    .join("users as u", "u.id", "aw.user_id")
    .where("u.realm_id", realmId)
    .select<AlertWordRow[]>("aw.user_id", "aw.word");
}

/** A user's alert words, in the order they were added (Zulip's user_alert_words). */
export async function alertWordsOf(knex: Knex, userId: number): Promise<string[]> {
  return knex("alert_words").where("user_id", userId).orderBy("rowid").pluck<string[]>("word");
}
