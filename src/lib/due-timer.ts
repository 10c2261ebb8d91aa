import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";

/** After a run fails unexpectedly, try again this much later (never in a tight loop). */
const RETRY_AFTER_FAILURE_MS = 60_000;

/**
 * One timer for a durable queue of timed work (scheduled messages and reminders): armed
 * for the earliest due time, brought forward when a change adds an earlier one, and woken
 * at start-up so that work missed while the server was down is done at once. Nothing runs
 * on the request path: `noteDue` only compares and, at most, re-arms the timer.
 *
 * `run` does everything that is due, durably, and returns the next due time (UNIX
 * seconds) or null when nothing waits.
 */
export class DueTimer {
  private cancelTimer: (() => void) | null = null;
  private soon: NodeJS.Timeout | null = null;
  private armedAtMs: number | null = null;
  private running: Promise<void> | null = null;
  private runAgain = false;
  private started = false;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly run: () => Promise<number | null>,
  ) {}

  /** Starts the timer: what is already due runs now, then it waits for the next. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    void this.wake();
  }

  /** Something new is due at `atSeconds` (a commit made it so): wake up by then. */
  noteDue(atSeconds: number): void {
    if (!this.started || this.stopped) return;
    this.armNoLaterThan(atSeconds * 1000);
  }

  /**
   * Something is due now, and may wait up to `windowMs` (real time) so that one run takes
   * everything noted meanwhile: a queue filled at the rate requests commit is then read
   * once per window instead of once per commit.
   */
  noteDueSoon(windowMs: number): void {
    if (!this.started || this.stopped || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      this.noteDue(this.clock.nowMs() / 1000);
    }, windowMs);
  }

  /** Resolves once no run is in progress (tests wait on it after moving their clock). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Cancels the timer and waits for a run in progress to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.disarm();
    if (this.soon) clearTimeout(this.soon);
    this.soon = null;
    await this.idle();
  }

  private armNoLaterThan(atMs: number): void {
    if (this.armedAtMs !== null && this.armedAtMs <= atMs) return;
    this.disarm();
    const delayMs = atMs - this.clock.nowMs();
    this.armedAtMs = atMs;
    const fire = () => {
      this.cancelTimer = null;
      this.armedAtMs = null;
      void this.wake();
    };
    if (delayMs <= 0) {
      const immediate = setImmediate(fire);
      this.cancelTimer = () => clearImmediate(immediate);
    } else {
      this.cancelTimer = this.clock.setTimer(fire, delayMs);
    }
  }

  private disarm(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.armedAtMs = null;
  }

  private wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      // Woken during a run: the run's view of what is next may be stale; run once more.
      this.runAgain = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.runAgain = false;
      let nextSeconds: number | null;
      try {
        nextSeconds = await this.run();
      } catch (err) {
        this.logger.error("timed delivery failed; retrying later", err);
        nextSeconds = (this.clock.nowMs() + RETRY_AFTER_FAILURE_MS) / 1000;
      }
      if (this.stopped) return;
      if (nextSeconds !== null) this.armNoLaterThan(nextSeconds * 1000);
    } while (this.runAgain && !this.stopped);
  }
}
