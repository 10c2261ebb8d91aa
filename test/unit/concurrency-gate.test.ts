import { expect } from "chai";
import { ConcurrencyGate } from "../../src/lib/concurrency-gate.js";

/** A task the test finishes by hand. */
function heldTask() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { task: () => done, release };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("ConcurrencyGate", function () {
  it("runs up to its limit, queues up to its queue limit in order, and refuses beyond at once", async function () {
    const gate = new ConcurrencyGate(2, 1, () => new Error("busy"));
    const held = [heldTask(), heldTask()];
    const running = held.map((h) => gate.run(h.task));
    expect([gate.running, gate.queued]).to.deep.equal([2, 0]);

    const order: string[] = [];
    const queued = gate.run(() => {
      order.push("queued");
      return Promise.resolve(7);
    });
    expect(gate.queued).to.equal(1);
    let refused: unknown = null;
    await gate.run(() => Promise.resolve()).catch((err: unknown) => (refused = err));
    expect((refused as Error).message).to.equal("busy");

    await tick();
    expect(order, "the queued task waits for a slot").to.deep.equal([]);
    held[0]!.release();
    expect(await queued).to.equal(7);
    expect([gate.running, gate.queued]).to.deep.equal([1, 0]);
    held[1]!.release();
    await Promise.all(running);
    expect(gate.running).to.equal(0);
  });

  it("frees the slot of a task that fails", async function () {
    const gate = new ConcurrencyGate(1, 0, () => new Error("busy"));
    await gate.run(() => Promise.reject(new Error("boom"))).catch(() => undefined);
    expect(gate.running).to.equal(0);
    expect(await gate.run(() => Promise.resolve("ok"))).to.equal("ok");
  });
});
