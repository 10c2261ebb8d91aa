import { expect } from "chai";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Db, type EventSink } from "../../src/db/tx.js";
import { fileLockTimer, lockTimer, setLockTimer } from "../../src/db/lock-timings.js";
import type { ChatEvent } from "../../src/wire/events.js";
import { lockStats, readLockTimings } from "../../tools/bench/users/lock-timings.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("write lock timings (CHATD_LOCK_TIMINGS_DIR, for the benchmark)", function () {
  let server: TestServer;
  let dir: string;
  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });
  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), "chatd-lock-timings-"));
  });
  afterEach(function () {
    setLockTimer(null);
    rmSync(dir, { recursive: true, force: true });
  });

  const event = (type: string) => ({ type }) as unknown as ChatEvent;
  const sink: EventSink = { send: () => undefined };
  const lines = () =>
    readdirSync(dir).flatMap((file) =>
      readFileSync(join(dir, file), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    );

  it("is off by default: nothing is timed", function () {
    expect(process.env.CHATD_LOCK_TIMINGS_DIR).to.equal(undefined);
    expect(lockTimer()).to.equal(null);
  });

  it("writes one line per committed transaction, named by its label or its first event's type", async function () {
    const timer = fileLockTimer(dir);
    setLockTimer(timer);
    const db = new Db(server.app.db.knex, sink, server.clock, server.app.knex);
    await db.transaction((tx) => {
      tx.sendEventOnCommit(1, event("message"), [1]);
      tx.sendEventOnCommit(1, event("message"), [2]);
      return Promise.resolve();
    });
    await db.transaction(() => Promise.resolve(), "presence");
    await db.transaction(() => Promise.resolve());
    timer.flush();
    const written = lines();
    expect(written.map((l) => [l.kind, l.items])).to.deep.equal([
      ["message", 2],
      ["presence", 0],
      ["none", 0],
    ]);
    for (const line of written) {
      expect(line.hold_ms).to.be.a("number").and.at.least(0);
      expect(line.wait_ms).to.be.a("number").and.at.least(0);
      expect(line.at)
        .to.be.a("number")
        .and.at.least(Date.now() - 60_000);
    }
  });

  it("times nothing while no timer is set", async function () {
    const timer = fileLockTimer(dir);
    const db = new Db(server.app.db.knex, sink, server.clock, server.app.knex);
    await db.transaction(() => Promise.resolve(), "presence");
    timer.flush();
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it("the benchmark sums up the window's transactions by kind", async function () {
    const timer = fileLockTimer(dir);
    timer.record("message", 2, 1, 4);
    timer.record("message", 1, 3, 6);
    timer.record("update_message_flags", 5, 0, 10);
    timer.flush();
    const timings = (await readLockTimings(dir)).map((t, i) => ({ ...t, at: 1000 + i * 100 }));
    // The window [1000, 1200] takes all three; its 200 ms were held for 20 of them.
    const stats = lockStats([...timings, { ...timings[0]!, at: 5000 }], 1000, 1200);
    expect(stats.send).to.deep.equal({
      n: 2,
      items_mean: 1.5,
      hold_p50_ms: 4,
      hold_p99_ms: 6,
      wait_p99_ms: 3,
      busy_pct: 5,
    });
    expect(stats.flags!.n).to.equal(1);
    expect(stats.all!.n).to.equal(3);
    expect(stats.all!.busy_pct).to.equal(10);
  });
});
