import type { Db, Tx } from "../db/tx.js";

interface Pending<I> {
  item: I;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Background writes that can wait a little, collected for `windowMs` and written in one
 * transaction. Each write transaction holds SQLite's single write lock and pays a commit
 * (an fsync), so background work written one item at a time (outgoing webhook results at
 * the rate messages arrive) would queue requests' writes behind it. Each caller is
 * answered once its item's transaction has committed.
 */
export class BatchedWrites<I> {
  private pending: Array<Pending<I>> = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly windowMs: number,
    private readonly write: (tx: Tx, item: I) => Promise<void>,
  ) {}

  submit(item: I): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.timer ??= setTimeout(() => void this.flush(), this.windowMs);
    });
  }

  private async flush(): Promise<void> {
    this.timer = null;
    await this.commit(this.pending.splice(0));
  }

  private async commit(batch: Array<Pending<I>>): Promise<void> {
    try {
      await this.db.transaction(async (tx) => {
        for (const pending of batch) await this.write(tx, pending.item);
      });
      for (const pending of batch) pending.resolve();
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // One failing item must not fail its neighbours: each again in its own transaction.
      for (const pending of batch) await this.commit([pending]);
    }
  }
}
