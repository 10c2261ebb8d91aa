import { expect } from "chai";
import { DueTimer } from "../../src/lib/due-timer.js";
import { silentLogger } from "../../src/logger.js";
import { TestClock } from "../helpers/clock.js";

describe("due timer", function () {
  /** A queue of due times (UNIX seconds); a run takes what is due and returns the next. */
  function queue(clock: TestClock) {
    const due: number[] = [];
    const ran: number[] = [];
    const run = () => {
      const now = clock.nowMs() / 1000;
      ran.push(...due.filter((at) => at <= now));
      const left = due.filter((at) => at > now).sort((a, b) => a - b);
      due.splice(0, due.length, ...left);
      return Promise.resolve(left[0] ?? null);
    };
    return { due, ran, run };
  }

  it("runs what is due at start, then wakes at the earliest time it was told of", async function () {
    const clock = new TestClock();
    const { due, ran, run } = queue(clock);
    const now = clock.nowMs() / 1000;
    due.push(now - 10, now + 100);
    const timer = new DueTimer(clock, silentLogger, run);
    timer.start();
    await timer.idle();
    expect(ran).to.deep.equal([now - 10]);
    // Something earlier than what the timer waits for brings it forward.
    due.push(now + 50);
    timer.noteDue(now + 50);
    clock.advance(51_000);
    await timer.idle();
    expect(ran).to.deep.equal([now - 10, now + 50]);
    clock.advance(50_000);
    await timer.idle();
    expect(ran).to.deep.equal([now - 10, now + 50, now + 100]);
    await timer.stop();
  });

  it("retries a failed run a minute later, and stops for good", async function () {
    const clock = new TestClock();
    let calls = 0;
    const timer = new DueTimer(clock, silentLogger, () => {
      calls++;
      return calls === 1 ? Promise.reject(new Error("database busy")) : Promise.resolve(null);
    });
    timer.start();
    await timer.idle();
    expect(calls).to.equal(1);
    clock.advance(59_000);
    await timer.idle();
    expect(calls).to.equal(1);
    clock.advance(1_000);
    await timer.idle();
    expect(calls).to.equal(2);
    await timer.stop();
    timer.noteDue(clock.nowMs() / 1000);
    clock.advance(1_000);
    await timer.idle();
    expect(calls).to.equal(2);
  });
});
