import type { Knex } from "knex";
import type { ChatEvent } from "../wire/events.js";
import { AlertWordMatcher, loadRealmAlertWords } from "../lib/alert-words.js";
import { linkifiersOfRealm, type WireLinkifier } from "../lib/linkifiers.js";
import { loadRealmMutes } from "../lib/muted-users.js";

type Muters = ReadonlyMap<number, ReadonlySet<number>>;

/** An active custom emoji, as rendering needs it. */
export interface RealmEmojiRow {
  id: number;
  name: string;
  file_name: string | null;
}

const NOBODY: ReadonlySet<number> = new Set();

/**
 * What each send needs besides its recipients, per realm: the alert words (who a message
 * alerts), who muted whom (their copies start read), the linkifiers and the active custom
 * emoji (rendering). Loaded once, they follow the committed event stream (alert_words,
 * muted_users, realm_linkifiers and realm_emoji events drop a realm's entry);
 * writes by other processes clear everything through the data_version watcher.
 */
export class SendRulesCache {
  private readonly alertWords = new Map<number, Promise<AlertWordMatcher>>();
  private readonly mutes = new Map<number, Promise<Muters>>();
  private readonly linkifierLists = new Map<number, Promise<WireLinkifier[]>>();
  private readonly emoji = new Map<number, Promise<ReadonlyMap<string, RealmEmojiRow>>>();
  /** Bumped by every invalidation, so a load that raced one is not kept. */
  private version = 0;

  /** The realm's alert words, compiled. */
  alertWordMatcher(knex: Knex, realmId: number): Promise<AlertWordMatcher> {
    return this.get(
      this.alertWords,
      knex,
      realmId,
      async (k) => new AlertWordMatcher(await loadRealmAlertWords(k, realmId)),
    );
  }

  /** The users who muted `userId`. */
  async mutersOf(knex: Knex, realmId: number, userId: number): Promise<ReadonlySet<number>> {
    const muters = await this.get(this.mutes, knex, realmId, (k) => loadRealmMutes(k, realmId));
    return muters.get(userId) ?? NOBODY;
  }

  /** The realm's linkifiers, in their order. */
  linkifiers(knex: Knex, realmId: number): Promise<WireLinkifier[]> {
    return this.get(this.linkifierLists, knex, realmId, (k) => linkifiersOfRealm(k, realmId));
  }

  /** The realm's active custom emoji by name. */
  realmEmoji(knex: Knex, realmId: number): Promise<ReadonlyMap<string, RealmEmojiRow>> {
    return this.get(this.emoji, knex, realmId, async (k) => {
      const rows = await k("realm_emoji")
        .where({ realm_id: realmId, deactivated: false })
        .select<RealmEmojiRow[]>("id", "name", "file_name");
      return new Map(rows.map((row) => [row.name, row]));
    });
  }

  /** Called with every event as it is published, after its transaction committed. */
  observe(realmId: number, event: ChatEvent): void {
    if (event.type === "alert_words") this.drop(this.alertWords, realmId);
    else if (event.type === "muted_users") this.drop(this.mutes, realmId);
    else if (event.type === "realm_linkifiers") this.drop(this.linkifierLists, realmId);
    else if (event.type === "realm_emoji") this.drop(this.emoji, realmId);
  }

  clear(): void {
    this.version++;
    this.alertWords.clear();
    this.mutes.clear();
    this.linkifierLists.clear();
    this.emoji.clear();
  }

  private drop(entries: Map<number, unknown>, realmId: number): void {
    this.version++;
    entries.delete(realmId);
  }

  /**
   * Inside a transaction a load may see that transaction's own writes: it is used but
   * never kept (a kept entry is committed state, which writes made since would have
   * invalidated).
   */
  private get<T>(
    entries: Map<number, Promise<T>>,
    knex: Knex,
    realmId: number,
    load: (knex: Knex) => Promise<T>,
  ): Promise<T> {
    const cached = entries.get(realmId);
    if (cached) return cached;
    if ((knex as Knex & { isTransaction?: boolean }).isTransaction) return load(knex);
    const version = this.version;
    const loading = load(knex);
    entries.set(realmId, loading);
    loading.then(
      () => {
        if (this.version !== version && entries.get(realmId) === loading) entries.delete(realmId);
      },
      () => {
        if (entries.get(realmId) === loading) entries.delete(realmId);
      },
    );
    return loading;
  }
}
