import { NetworkError } from "../../src/web/api/errors.js";
import type { InitialState, ServerEvent } from "../../src/web/api/types.js";
import type { CallParams, LiveApi, MessagesAnswer } from "../../src/web/live/api.js";
import type { QueueTimers } from "../../src/web/live/queue.js";

/** Lets every settled promise run its callbacks (the queue's loop moves on). */
export const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** A promise the test settles by hand. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export interface Poll {
  params: CallParams;
  signal: AbortSignal;
  answer(events: ServerEvent[]): void;
  fail(err: unknown): void;
}

/**
 * The server as LiveQueue and live/fetch.ts see it: registers answer from a list the
 * test fills, each poll waits until the test answers it, and an aborted poll fails as
 * the browser's fetch does (NetworkError), unless `ignoreAborts` (a poll already answered).
 */
export class FakeServer implements LiveApi {
  readonly registerCalls: CallParams[] = [];
  readonly registerAnswers: Array<InitialState | Error> = [];
  readonly polls: Poll[] = [];
  readonly messageCalls: CallParams[] = [];
  readonly messageAnswers: Array<ReturnType<typeof deferred<MessagesAnswer>>> = [];
  ignoreAborts = false;

  register(params: CallParams): Promise<InitialState> {
    this.registerCalls.push(params);
    const answer = this.registerAnswers.shift();
    if (!answer) return Promise.reject(new Error("FakeServer: no register answer left"));
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(structuredClone(answer));
  }

  events(params: CallParams, signal: AbortSignal): Promise<{ events: ServerEvent[] }> {
    const { promise, resolve, reject } = deferred<{ events: ServerEvent[] }>();
    this.polls.push({ params, signal, answer: (events) => resolve({ events }), fail: reject });
    signal.addEventListener("abort", () => {
      if (!this.ignoreAborts) reject(new NetworkError("The operation was aborted."));
    });
    return promise;
  }

  messages(params: CallParams): Promise<MessagesAnswer> {
    this.messageCalls.push(params);
    const answer = deferred<MessagesAnswer>();
    this.messageAnswers.push(answer);
    return answer.promise;
  }

  /** The poll waiting for an answer (the newest). */
  get lastPoll(): Poll {
    const poll = this.polls[this.polls.length - 1];
    if (!poll) throw new Error("FakeServer: no poll made");
    return poll;
  }
}

/** Timers the test fires by hand; no jitter (random is ½, the middle of the range). */
export class FakeTimers implements QueueTimers {
  private readonly pending = new Map<number, { run: () => void; ms: number }>();
  private next = 1;

  setTimeout(run: () => void, ms: number): unknown {
    const handle = this.next++;
    this.pending.set(handle, { run, ms });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  random(): number {
    return 0.5;
  }

  /** The delays of the timers waiting, in the order they were set. */
  waiting(): number[] {
    return [...this.pending.values()].map((t) => t.ms);
  }

  /** Fires the timers of this delay. */
  fire(ms: number): void {
    for (const [handle, timer] of [...this.pending]) {
      if (timer.ms !== ms) continue;
      this.pending.delete(handle);
      timer.run();
    }
  }
}
