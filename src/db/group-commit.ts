import type { Db, Tx } from "./tx.js";

/** Most items one commit carries; bounds a transaction's length under a burst. */
const MAX_BATCH = 200;

interface Pending<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit. A commit (an fsync) costs far more than writing one message, so items
 * that arrive while a transaction is running wait and then share the next one. Each
 * caller is answered only after the transaction holding its item has committed.
 */
export class GroupCommit<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private draining = false;

  /** `write` must return one result per item, in order. */
  constructor(
    private readonly db: Db,
    private readonly write: (tx: Tx, items: I[]) => Promise<O[]>,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        // Let pending I/O run first: requests that arrived during the last commit (with a
        // synchronous driver, the commit blocked the event loop) join this batch.
        await new Promise((resolve) => setImmediate(resolve));
        await this.commit(this.queue.splice(0, MAX_BATCH));
      }
    } finally {
      this.draining = false;
    }
  }

  private async commit(batch: Array<Pending<I, O>>): Promise<void> {
    try {
      const items = batch.map((pending) => pending.item);
      const results = await this.db.transaction((tx) => this.write(tx, items));
      batch.forEach((pending, i) => pending.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // One bad item must not fail its neighbours: retry each in its own transaction.
      for (const pending of batch) await this.commit([pending]);
    }
  }
}
