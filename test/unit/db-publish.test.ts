import { expect } from "chai";
import { Db, type EventSink } from "../../src/db/tx.js";
import type { ChatEvent } from "../../src/wire/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("Db.publish: ephemeral events", function () {
  let server: TestServer;
  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  /** A Db over the test server's database whose sink records event types. */
  function recordingDb(outbox: boolean) {
    const sent: string[] = [];
    const sink: EventSink = { send: (_realmId, event) => void sent.push(event.type) };
    return { sent, db: new Db(server.app.db.knex, sink, server.clock, server.app.knex, outbox) };
  }
  // Db hands events to the sink untouched: a bare type is enough to trace them.
  const event = (type: string) => ({ type }) as unknown as ChatEvent;

  it("reaches the sink at once, without waiting for a running transaction", async function () {
    const { sent, db } = recordingDb(false);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writing = db.transaction(async (tx) => {
      tx.sendEventOnCommit(1, event("committed"), [1]);
      await held;
    });
    await new Promise((resolve) => setImmediate(resolve));
    db.publish(1, event("typing"), [1]);
    expect(sent).to.deep.equal(["typing"]);
    release();
    await writing;
    expect(sent).to.deep.equal(["typing", "committed"]);
  });

  it("is dropped by a process that writes to the outbox, and never stored", async function () {
    const { sent, db } = recordingDb(true);
    const before = await server.app.knex("event_outbox").count<Array<{ n: number }>>("* as n");
    db.publish(1, event("typing"), [1]);
    const after = await server.app.knex("event_outbox").count<Array<{ n: number }>>("* as n");
    expect(sent).to.deep.equal([]);
    expect(after).to.deep.equal(before);
  });

  it("Db.exclusive runs after a running transaction has published its events", async function () {
    const { sent, db } = recordingDb(false);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writing = db.transaction(async (tx) => {
      tx.sendEventOnCommit(1, event("committed"), [1]);
      await held;
    });
    await new Promise((resolve) => setImmediate(resolve));
    const presence = db.exclusive(() => db.publish(1, event("presence"), [1]));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).to.deep.equal([]);
    release();
    await Promise.all([writing, presence]);
    expect(sent).to.deep.equal(["committed", "presence"]);
  });
});
