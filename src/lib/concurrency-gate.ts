/**
 * Runs at most `limit` tasks at once; up to `queueLimit` more wait their turn, in order,
 * and beyond that a task is refused at once with `refuse()` (fast failure instead of an
 * ever-growing backlog).
 */
export class ConcurrencyGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly queueLimit: number,
    private readonly refuse: () => Error,
  ) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) {
      this.active++;
    } else {
      if (this.waiting.length >= this.queueLimit) throw this.refuse();
      // The finishing task hands its slot over: `active` stays as it is.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
