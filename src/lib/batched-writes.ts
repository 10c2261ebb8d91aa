import type { Db, Tx } from "../db/tx.js";

interface Pending<I> {
  item: I;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Background writes that can wait a little. Each write transaction holds SQLite's single
 * write lock and pays a commit (an fsync), so background work written one item at a time
 * (outgoing webhook results, at the rate messages arrive) would queue requests' writes
 * behind it. Items wait up to `windowMs` and are written together, in a transaction of
 * their own or, sooner, inside one that commits anyway (`writeIn`: a group commit of sends).
 * Each caller is answered once its item's transaction has committed. `write` must be
 * harmless when repeated: after a failed batch, its items are written again one by one.
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

  /**
   * Writes the waiting items `which` selects inside `tx`; they are done once it commits
   * (if it rolls back they stay waiting). Only for writes that cannot fail, since a
   * failure fails `tx`. Transactions run one at a time, so no item is written twice.
   */
  async writeIn(tx: Tx, which: (item: I) => boolean = () => true): Promise<void> {
    const batch = this.pending.filter((pending) => which(pending.item));
    if (batch.length === 0) return;
    for (const pending of batch) await this.write(tx, pending.item);
    tx.afterCommit(() => this.settle(batch));
  }

  private settle(batch: Array<Pending<I>>, error?: unknown): void {
    const done = new Set(batch);
    this.pending = this.pending.filter((pending) => !done.has(pending));
    for (const pending of batch) {
      if (error === undefined) pending.resolve();
      else pending.reject(error);
    }
  }

  private async flush(): Promise<void> {
    this.timer = null;
    try {
      await this.db.transaction((tx) => this.writeIn(tx));
    } catch {
      // One failing item must not fail its neighbours: each again in its own transaction.
      for (const pending of [...this.pending]) {
        try {
          await this.db.transaction(async (tx) => {
            await this.write(tx, pending.item);
            tx.afterCommit(() => this.settle([pending]));
          });
        } catch (error) {
          this.settle([pending], error);
        }
      }
    }
    if (this.pending.length > 0) this.timer ??= setTimeout(() => void this.flush(), this.windowMs);
  }
}
