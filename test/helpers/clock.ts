import type { Clock } from "../../src/clock.js";

/** A clock tests move by hand; starts at the real time. */
export class TestClock implements Clock {
  private offsetMs = 0;

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
