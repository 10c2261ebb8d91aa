import { expect } from "chai";
import { Db, type EventSink } from "../../src/db/tx.js";
import type { ChatEvent } from "../../src/events/types.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("Db.closeWrites: no commit after a stopping server saved its queues", function () {
  let server: TestServer;
  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const event = (type: string) => ({ type }) as unknown as ChatEvent;

  it("lets the transactions already waiting commit and publish, and refuses every later one unrun", async function () {
    const sent: string[] = [];
    const sink: EventSink = { send: (_realmId, e) => void sent.push(e.type) };
    const db = new Db(server.app.db.knex, sink, server.clock, server.app.knex);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const running = db.transaction(async (tx) => {
      tx.sendEventOnCommit(1, event("running"), [1]);
      await held;
    });
    const waiting = db.transaction((tx) => {
      tx.sendEventOnCommit(1, event("waiting"), [1]);
      return Promise.resolve();
    });
    let closed = false;
    const closing = db.closeWrites().then(() => (closed = true));
    let ran = false;
    const late = db.transaction((tx) => {
      ran = true;
      tx.sendEventOnCommit(1, event("late"), [1]);
      return Promise.resolve();
    });
    late.catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).to.equal(false);

    release();
    await Promise.all([running, waiting, closing]);
    // When closeWrites resolves, every commit it let through has published its events.
    expect(sent).to.deep.equal(["running", "waiting"]);
    let refusal: unknown = null;
    await late.catch((err: unknown) => (refusal = err));
    expect(String(refusal)).to.equal("Error: the server is stopping: no more writes");
    expect(ran).to.equal(false);
    expect(sent).to.deep.equal(["running", "waiting"]);
  });
});
