/** Time source, injected so tests can move time forward without waiting. */
export interface Clock {
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

export const nowSeconds = (clock: Clock) => Math.floor(clock.nowMs() / 1000);
