import { expect } from "chai";
import type { Knex } from "knex";
import { Db, type EventSink } from "../../src/db/tx.js";
import type { ChatEvent } from "../../src/wire/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("Db.statement: a one-statement write without BEGIN and COMMIT", function () {
  let server: TestServer;
  before(async function () {
    server = await startTestServer();
    await server.app.db.knex.schema.createTable("statement_probe", (t) => {
      t.integer("id").primary();
      t.string("value");
    });
    await server.app.db.knex("statement_probe").insert({ id: 1, value: "before" });
  });
  after(async function () {
    await server.close();
  });

  const event = (type: string) => ({ type }) as unknown as ChatEvent;

  /** The SQL the writer ran during the current test. */
  let sql: string[] = [];
  const onQuery = (q: { sql: string }) => void sql.push(q.sql);
  beforeEach(function () {
    sql = [];
    server.app.db.knex.on("query", onQuery);
  });
  afterEach(function () {
    server.app.db.knex.off("query", onQuery);
  });

  /** A Db over the server's connections, with its own sink. */
  function db(): { db: Db; sent: string[] } {
    const sent: string[] = [];
    const sink: EventSink = { send: (_realmId, e) => void sent.push(e.type) };
    return { db: new Db(server.app.db.knex, sink, server.clock, server.app.knex), sent };
  }

  const probe = async (knex: Knex) => (await knex("statement_probe").first<{ value: string }>("value")).value;

  it("writes, then publishes its events; on SQLite with no BEGIN around it", async function () {
    const { db: store, sent } = db();
    await store.statement(async (tx) => {
      await tx.knex("statement_probe").update({ value: "after" });
      tx.sendEventOnCommit(1, event("changed"), [1]);
      expect(sent).to.deep.equal([]);
    });
    expect(sent).to.deep.equal(["changed"]);
    expect(await probe(server.app.knex)).to.equal("after");
    if (process.env.CHATD_TEST_POSTGRES) return;
    expect(sql.filter((q) => /^\s*(BEGIN|COMMIT)/i.test(q))).to.deep.equal([]);
  });

  it("publishes nothing when its statement fails", async function () {
    const { db: store, sent } = db();
    let failure: unknown = null;
    await store
      .statement(async (tx) => {
        tx.sendEventOnCommit(1, event("never"), [1]);
        await tx.knex("no_such_table").update({ x: 1 });
      })
      .catch((err: unknown) => (failure = err));
    expect(failure).to.be.an("error");
    expect(sent).to.deep.equal([]);
  });

  it("is refused, unrun, once writes are closed", async function () {
    const { db: store, sent } = db();
    await store.closeWrites();
    let ran = false;
    let refusal: unknown = null;
    await store
      .statement((tx) => {
        ran = true;
        tx.sendEventOnCommit(1, event("late"), [1]);
        return Promise.resolve();
      })
      .catch((err: unknown) => (refusal = err));
    expect(String(refusal)).to.equal("Error: the server is stopping: no more writes");
    expect(ran).to.equal(false);
    expect(sent).to.deep.equal([]);
  });
});
