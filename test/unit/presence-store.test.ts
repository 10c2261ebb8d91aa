import { expect } from "chai";
import { PresenceStore } from "../../src/cache/presence-store.js";
import type { Db, Tx } from "../../src/db/tx.js";
import { silentLogger } from "../../src/logger.js";

/** What a store alone skips when it loads a realm (UNFLUSHED_NUMBERS in presence-store.ts). */
const UNFLUSHED = 1_000_000;
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("presence store: batched writes", function () {
  let server: TestServer;
  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  /** The server's Db, except that the next `failures` transactions fail. */
  function flakyDb(failures: number): Db {
    let left = failures;
    return {
      transaction: <T>(fn: (tx: Tx) => Promise<T>) => {
        if (left-- > 0) return Promise.reject(Object.assign(new Error("busy"), { code: "SQLITE_BUSY" }));
        return server.app.db.transaction(fn);
      },
    } as Db;
  }

  it("keeps a failed batch for the next flush, newer changes first", async function () {
    const realm = await server.factory.realm({ hamlet: 400, othello: 400 });
    const [hamlet, othello] = [realm.users.hamlet!.id, realm.users.othello!.id];
    const store = new PresenceStore(flakyDb(1), server.app.knex, silentLogger);
    const base = (await store.realm(realm.id)).lastUpdateId;
    expect(base).to.equal(UNFLUSHED);
    store.set(realm.id, hamlet, { lastActiveTime: 100, lastConnectedTime: 100 });
    store.set(realm.id, othello, { lastActiveTime: null, lastConnectedTime: 100 });
    await store.flush();
    expect(store.unflushed).to.equal(2);
    // A change made after the failed attempt wins over the failed one.
    store.set(realm.id, hamlet, { lastActiveTime: 200, lastConnectedTime: 200 });
    await store.flush();
    expect(store.unflushed).to.equal(0);
    const rows = await server.app
      .knex("user_presence")
      .whereIn("user_id", [hamlet, othello])
      .orderBy("user_id")
      .select("user_id", "last_active_time", "last_connected_time", "last_update_id");
    expect(
      rows.map((r: Record<string, unknown>) => ({ ...r, last_update_id: Number(r.last_update_id) })),
    ).to.deep.equal([
      { user_id: hamlet, last_active_time: 200, last_connected_time: 200, last_update_id: base + 3 },
      { user_id: othello, last_active_time: null, last_connected_time: 100, last_update_id: base + 2 },
    ]);
    // A fresh store (the next run) reads them back; its sequence goes on past any number
    // the last run may have handed out unflushed.
    const reloaded = new PresenceStore(server.app.db, server.app.knex, silentLogger);
    const loaded = await reloaded.realm(realm.id);
    expect(loaded.records.get(hamlet)?.lastUpdateId).to.equal(base + 3);
    expect(loaded.lastUpdateId).to.equal(base + 3 + UNFLUSHED);
    expect(
      reloaded.set(realm.id, othello, { lastActiveTime: 300, lastConnectedTime: 300 }).lastUpdateId,
    ).to.equal(base + 4 + UNFLUSHED);
    // A client that holds the last flushed number gets the change.
    expect(reloaded.changedSince(realm.id, base + 3)).to.deep.equal([othello]);
  });

  it("alone, never hands out again a number a crashed run handed out unflushed", async function () {
    const realm = await server.factory.realm({ hamlet: 400, othello: 400 });
    const [hamlet, othello] = [realm.users.hamlet!.id, realm.users.othello!.id];
    const crashed = new PresenceStore(server.app.db, server.app.knex, silentLogger);
    await crashed.realm(realm.id);
    crashed.set(realm.id, hamlet, { lastActiveTime: 100, lastConnectedTime: 100 });
    await crashed.flush();
    // Clients saw these numbers; the run died before writing them.
    const lost = [1, 2, 3].map(
      (i) =>
        crashed.set(realm.id, hamlet, { lastActiveTime: 100 + i, lastConnectedTime: 100 + i }).lastUpdateId,
    );
    expect(crashed.unflushed).to.equal(1);
    const next = new PresenceStore(server.app.db, server.app.knex, silentLogger);
    await next.realm(realm.id);
    const change = next.set(realm.id, othello, { lastActiveTime: 200, lastConnectedTime: 200 });
    expect(change.lastUpdateId).to.be.greaterThan(Math.max(...lost));
    // A client holding the newest lost number still learns of the change.
    expect(next.changedSince(realm.id, Math.max(...lost))).to.deep.equal([othello]);
    await next.flush();
  });

  it("tells who changed since an update, as far back as its log reaches", async function () {
    const realm = await server.factory.realm({ hamlet: 400, othello: 400 });
    const [hamlet, othello] = [realm.users.hamlet!.id, realm.users.othello!.id];
    const store = new PresenceStore(server.app.db, server.app.knex, silentLogger);
    const start = (await store.realm(realm.id)).lastUpdateId;
    expect(store.changedSince(realm.id, start)).to.deep.equal([]);
    store.set(realm.id, hamlet, { lastActiveTime: 1, lastConnectedTime: 1 });
    store.set(realm.id, othello, { lastActiveTime: 1, lastConnectedTime: 1 });
    expect(store.changedSince(realm.id, start)).to.deep.equal([hamlet, othello]);
    expect(store.changedSince(realm.id, start + 1)).to.deep.equal([othello]);
    for (let i = 0; i < 10_000; i++) store.set(realm.id, hamlet, { lastActiveTime: i, lastConnectedTime: i });
    expect(store.changedSince(realm.id, start)).to.equal(null);
    expect(store.changedSince(realm.id, start + 10_001)).to.deep.equal([hamlet]);
  });

  it("shared: a flush never replaces a later change, and each store reads the others' changes", async function () {
    const realm = await server.factory.realm({ hamlet: 400 });
    const hamlet = realm.users.hamlet!.id;
    /** A store of another process, whose clock reads `at()`. */
    const storeOf = (at: () => number) =>
      new PresenceStore(server.app.db, server.app.knex, silentLogger, {
        clock: { nowMs: at, setTimer: () => () => undefined },
        shared: true,
      });
    let now = 1_000;
    const [a, b] = [storeOf(() => now), storeOf(() => now)];
    await a.realm(realm.id);
    await b.realm(realm.id);
    const start = (await a.realm(realm.id)).lastUpdateId;
    a.set(realm.id, hamlet, { lastActiveTime: 100, lastConnectedTime: 100 });
    now = 2_000;
    b.set(realm.id, hamlet, { lastActiveTime: 200, lastConnectedTime: 200 });
    // The later change is written first; the earlier one, flushed after it, does not replace it.
    await b.flush();
    await a.flush();
    const stored = () =>
      server.app.knex("user_presence").where({ user_id: hamlet }).first("last_active_time", "changed_at");
    expect(await stored()).to.deep.include({ last_active_time: 200 });
    expect(Number((await stored()).changed_at)).to.equal(2_000);
    // Each reads what was flushed: a takes b's later change under the number b's flush gave it.
    await a.readOthers();
    await b.readOthers();
    const numbered = b.get(realm.id, hamlet)!.lastUpdateId;
    expect(numbered).to.be.greaterThan(start);
    expect(a.get(realm.id, hamlet)).to.deep.equal({
      lastActiveTime: 200,
      lastConnectedTime: 200,
      lastUpdateId: numbered,
      changedAt: 2_000,
    });
    expect(a.changedSince(realm.id, start)).to.deep.equal([hamlet]);
    expect(a.changedSince(realm.id, numbered)).to.deep.equal([]);
    // Recorded later wins even with earlier times (turning presence off records that).
    now = 3_000;
    a.set(realm.id, hamlet, { lastActiveTime: null, lastConnectedTime: 50 });
    await a.flush();
    await b.readOthers();
    expect(b.get(realm.id, hamlet)).to.deep.include({ lastActiveTime: null, lastConnectedTime: 50 });
    expect(b.unflushed).to.equal(0);
  });

  /** Two stores sharing the database, as two processes' (with the server's clock). */
  const sharedPair = () =>
    [0, 1].map(() => new PresenceStore(server.app.db, server.app.knex, silentLogger, { shared: true })) as [
      PresenceStore,
      PresenceStore,
    ];

  it("shared: one sequence, numbered in flush order, the same in every store", async function () {
    const realm = await server.factory.realm({ hamlet: 400, othello: 400 });
    const [hamlet, othello] = [realm.users.hamlet!.id, realm.users.othello!.id];
    const [a, b] = sharedPair();
    await a.realm(realm.id);
    await b.realm(realm.id);
    // Two changes of one user before a flush: b writes (and numbers) only the second.
    b.set(realm.id, othello, { lastActiveTime: 1, lastConnectedTime: 1 });
    b.set(realm.id, othello, { lastActiveTime: 2, lastConnectedTime: 2 });
    await b.flush();
    a.set(realm.id, hamlet, { lastActiveTime: 3, lastConnectedTime: 3 });
    await a.flush();
    await b.readOthers();
    const first = a.get(realm.id, othello)!.lastUpdateId;
    const second = a.get(realm.id, hamlet)!.lastUpdateId;
    expect(second).to.be.greaterThan(first);
    for (const store of [a, b]) {
      const state = await store.realm(realm.id);
      expect(state.lastUpdateId).to.equal(second);
      expect(state.records.get(othello)).to.deep.include({ lastActiveTime: 2, lastUpdateId: first });
      expect(state.records.get(hamlet)).to.deep.include({ lastActiveTime: 3, lastUpdateId: second });
      expect(store.changedSince(realm.id, first)).to.deep.equal([hamlet]);
    }
    // The stored rows carry the same numbers: a process started later reads them as they are.
    const [c] = sharedPair();
    expect((await c.realm(realm.id)).records.get(hamlet)!.lastUpdateId).to.equal(second);
  });

  it("shared: an unflushed change counts for decisions (get) but shows in reads once flushed", async function () {
    const realm = await server.factory.realm({ hamlet: 400 });
    const hamlet = realm.users.hamlet!.id;
    const [a, b] = sharedPair();
    const state = await a.realm(realm.id);
    await b.realm(realm.id);
    const before = state.lastUpdateId;
    a.set(realm.id, hamlet, { lastActiveTime: 10, lastConnectedTime: 10 });
    expect(a.get(realm.id, hamlet)).to.deep.include({ lastActiveTime: 10 });
    expect(state.records.has(hamlet)).to.equal(false);
    expect(a.changedSince(realm.id, before)).to.deep.equal([]);
    await a.flush();
    expect(a.unflushed).to.equal(0);
    expect(state.records.get(hamlet)!.lastUpdateId).to.be.greaterThan(before);
    expect(a.changedSince(realm.id, before)).to.deep.equal([hamlet]);
    // Read after a's flush, the other store shows the same; its later change takes a larger number.
    await b.readOthers();
    b.set(realm.id, hamlet, { lastActiveTime: 20, lastConnectedTime: 20 });
    await b.flush();
    await a.readOthers();
    expect(state.records.get(hamlet)).to.deep.include({ lastActiveTime: 20 });
    expect(state.lastUpdateId).to.equal((await b.realm(realm.id)).lastUpdateId);
  });

  it("refuses to read or change a realm it has not loaded", function () {
    const store = new PresenceStore(server.app.db, server.app.knex, silentLogger);
    expect(() => store.get(999_999, 1)).to.throw("not loaded");
    expect(() => store.set(999_999, 1, { lastActiveTime: 1, lastConnectedTime: 1 })).to.throw("not loaded");
  });
});
