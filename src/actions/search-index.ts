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
  private running: Promise<void> | null = null;
  private again = false;

  constructor(private readonly app: App) {}

  /** Starts a pass (or one more after the current one): new messages are noted. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop();
  }

  /** Resolves once no pass is due: everything noted before the call is indexed (or failed). */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        while ((await indexBatch(this.app.db)) === BATCH);
      } while (this.again);
    } catch (err) {
      // The notes stay: the next pass (the next send, or start-up) indexes them.
      this.app.logger.error("search indexing failed", err);
    } finally {
      this.running = null;
    }
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
