import type { App } from "../app.js";
import { reindexMessages, takeForIndexing } from "../db/search.js";
import type { Db } from "../db/tx.js";
import { plainText } from "../render/message.js";

/**
 * Full-text indexing, off the send's transaction (as Zulip's fts_update_log and its
 * process_fts_updates worker). A send notes its messages in `search_pending` in its
 * transaction; right after the commit, a pass here indexes them in a transaction of its
 * own that needs no fsync. A crash can lose that pass, never the note: start-up indexes
 * what is left (indexSearchBacklog). POST /messages answers once its message is indexed,
 * so whoever sent it finds it; other clients may search a few milliseconds before.
 */

/** Messages indexed per transaction: bounds a pass's hold on the writer. */
const BATCH = 500;

class SearchIndexer {
  private running = false;
  private again = false;
  /** Passes begun and finished; a pass begun after a commit indexes what it noted. */
  private begun = 0;
  private finished = 0;
  private waiters: Array<{ pass: number; resolve: () => void }> = [];

  constructor(private readonly app: App) {}

  /** Starts a pass (or one more after the current one): new messages are noted. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.loop();
  }

  /**
   * Resolves once a pass begun after this call has finished: what was noted and committed
   * before it is indexed (or its pass failed, and the notes wait for the next one). A pass
   * under way may have taken its notes before the caller's commit: it does not count.
   */
  settled(): Promise<void> {
    if (!this.running) return Promise.resolve();
    this.again = true;
    return new Promise((resolve) => this.waiters.push({ pass: this.begun + 1, resolve }));
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        for (;;) {
          this.begun++;
          const taken = await indexBatch(this.app.db);
          this.passFinished();
          if (taken < BATCH) break;
        }
      } while (this.again);
    } catch (err) {
      // The notes stay: the next pass (the next send, or start-up) indexes them.
      this.app.logger.error("search indexing failed", err);
    } finally {
      this.running = false;
      // Done, or failed (the notes wait for the next pass): nobody waits any longer.
      this.finished = this.begun;
      for (const waiter of this.waiters.splice(0)) waiter.resolve();
    }
  }

  private passFinished(): void {
    this.finished++;
    const done = this.waiters.filter((w) => w.pass <= this.finished);
    this.waiters = this.waiters.filter((w) => w.pass > this.finished);
    for (const waiter of done) waiter.resolve();
  }
}

/** Indexes up to BATCH noted messages; returns how many notes it took. */
async function indexBatch(db: Db): Promise<number> {
  return db.transaction(
    async (tx) => {
      const ids = await takeForIndexing(tx.knex, BATCH);
      if (ids.length === 0) return 0;
      const rows = await tx.knex
        .select<Array<{ id: number; topic: string; rendered_content: string }>>(
          "id",
          "topic",
          "rendered_content",
        )
        .from("messages")
        .whereIn("id", ids);
      // A message edited before this pass was indexed by its edit: replace, never add twice.
      await reindexMessages(
        tx.knex,
        rows.map((row) => ({ id: row.id, topic: row.topic, text: plainText(row.rendered_content) })),
      );
      return ids.length;
    },
    { durable: false },
  );
}

const indexers = new WeakMap<App, SearchIndexer>();

function indexerOf(app: App): SearchIndexer {
  let indexer = indexers.get(app);
  if (!indexer) indexers.set(app, (indexer = new SearchIndexer(app)));
  return indexer;
}

/** After a commit that noted messages (markForIndexing): index them now. */
export function indexNotedMessages(app: App): void {
  indexerOf(app).kick();
}

/** Resolves once the messages noted so far are indexed (a pass failing resolves too). */
export function searchIndexSettled(app: App): Promise<void> {
  return indexerOf(app).settled();
}

/** Start-up and shutdown: indexes every noted message, a crash's leftovers included. */
export async function indexSearchBacklog(app: App): Promise<void> {
  indexNotedMessages(app);
  await searchIndexSettled(app);
}
