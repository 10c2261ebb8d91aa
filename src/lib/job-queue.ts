/**
 * Work that must not hold up a request (thumbnails): run one job at a time, in order,
 * after the current request has been answered. A failing job is logged and dropped; the
 * work it stood for is retried where it matters (thumbnails are re-queued when a message
 * renders an image that has none yet).
 */
export class JobQueue {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;
  private closed = false;

  constructor(private readonly onError: (name: string, err: unknown) => void) {}

  enqueue(name: string, job: () => Promise<void>): void {
    if (this.closed) return;
    this.pending++;
    this.tail = this.tail
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => (this.closed ? undefined : job()))
      .catch((err: unknown) => this.onError(name, err))
      .finally(() => void this.pending--);
  }

  /** Resolves when every job queued so far has finished (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.pending > 0) await this.tail;
  }

  /** Drops jobs not yet started; waits for the running one. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }
}
