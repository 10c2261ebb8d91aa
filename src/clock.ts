/** Time source, injected so tests can move time forward without waiting. */
export interface Clock {
  nowMs(): number;
  /**
   * Calls `fn` once, `delayMs` from now on this clock; returns a function that cancels
   * it. Tests' clocks fire their timers when time is moved past them.
   */
  setTimer(fn: () => void, delayMs: number): () => void;
}

/** setTimeout's largest delay (about 24.8 days); longer timers fire early and re-arm. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  setTimer(fn, delayMs) {
    const timer = setTimeout(fn, Math.min(Math.max(delayMs, 0), MAX_TIMER_DELAY_MS));
    // Housekeeping only: never what keeps a process alive.
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export const nowSeconds = (clock: Clock) => Math.floor(clock.nowMs() / 1000);
