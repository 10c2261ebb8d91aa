import type { Clock } from "../../src/clock.js";

interface Timer {
  atMs: number;
  fn: () => void;
}

/**
 * A clock tests move by hand; starts at the real time. Its timers fire only when
 * `advance` moves time past them (in time order), never by themselves.
 */
export class TestClock implements Clock {
  private offsetMs = 0;
  private timers = new Set<Timer>();
  private frozenAtMs: number | null = null;

  nowMs(): number {
    return (this.frozenAtMs ?? Date.now()) + this.offsetMs;
  }

  /** Stops the clock (it then moves only by `advance`): for tests that count within a window. */
  freeze(): void {
    this.frozenAtMs ??= Date.now();
  }

  setTimer(fn: () => void, delayMs: number): () => void {
    const timer = { atMs: this.nowMs() + Math.max(delayMs, 0), fn };
    this.timers.add(timer);
    return () => void this.timers.delete(timer);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
    const now = this.nowMs();
    const due = [...this.timers].filter((t) => t.atMs <= now).sort((a, b) => a.atMs - b.atMs);
    for (const timer of due) {
      this.timers.delete(timer);
      timer.fn();
    }
  }
}
