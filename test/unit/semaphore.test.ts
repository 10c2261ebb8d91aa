import { expect } from "chai";
import { Semaphore } from "../../src/db/mutex.js";

/** A task the test finishes by hand, recording when it starts. */
function heldTask(name: string, started: string[]) {
  let release!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    release = () => resolve(name);
    fail = reject;
  });
  return {
    task: () => {
      started.push(name);
      return done;
    },
    release,
    fail,
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("Semaphore", function () {
  it("runs at most `limit` callers at once, admits the rest in arrival order, and passes results through", async function () {
    const limit = 3;
    const semaphore = new Semaphore(limit);
    const started: string[] = [];
    let running = 0;
    let most = 0;
    const names = Array.from({ length: limit + 2 }, (_, i) => `c${i}`);
    const held = names.map((name) => heldTask(name, started));
    const results = held.map((h) =>
      semaphore.run(async () => {
        running++;
        most = Math.max(most, running);
        try {
          return await h.task();
        } finally {
          running--;
        }
      }),
    );
    await tick();
    expect(started).to.deep.equal(names.slice(0, limit));

    // Finishing the second (not the first) admits the first waiter, then the next.
    held[1]!.release();
    await tick();
    expect(started).to.deep.equal(names.slice(0, limit + 1));
    held[0]!.release();
    await tick();
    expect(started).to.deep.equal(names);
    for (const h of held.slice(2)) h.release();

    expect(await Promise.all(results)).to.deep.equal(names);
    expect(most).to.equal(limit);
  });

  it("frees the slot of a caller that throws, and passes its rejection through", async function () {
    const semaphore = new Semaphore(1);
    const started: string[] = [];
    const failing = heldTask("failing", started);
    const waiter = heldTask("waiter", started);
    const first = semaphore.run(failing.task);
    const second = semaphore.run(waiter.task);
    await tick();
    expect(started).to.deep.equal(["failing"]);

    const err = new Error("the caller failed");
    failing.fail(err);
    let caught: unknown = null;
    await first.catch((e: unknown) => (caught = e));
    expect(caught).to.equal(err);
    await tick();
    expect(started).to.deep.equal(["failing", "waiter"]);
    waiter.release();
    expect(await second).to.equal("waiter");

    // A synchronous throw frees the slot too: the next caller runs at once.
    let syncCaught: unknown = null;
    await semaphore
      .run(() => {
        throw new Error("thrown before any await");
      })
      .catch((e: unknown) => (syncCaught = e));
    expect((syncCaught as Error).message).to.equal("thrown before any await");
    expect(await semaphore.run(() => Promise.resolve(42))).to.equal(42);
  });
});
