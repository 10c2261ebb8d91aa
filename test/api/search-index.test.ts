import { expect } from "chai";
import { isPostgres } from "../../src/db/dialect.js";
import { removeFromIndex, SEARCH_PENDING_TABLE } from "../../src/db/search.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { searchIndex, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** Message IDs still noted for indexing. */
const pending = (server: TestServer) =>
  server.app.db.knex(SEARCH_PENDING_TABLE).orderBy("message_id").pluck<number[]>("message_id");

describe("search indexing after the send's commit", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer({}, { keepDataDir: true });
    u = cast(await server.factory.realm());
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
  });
  after(async function () {
    await server.close();
  });

  it("has the message indexed, and its note gone, once the send is answered", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "ramparts", "A lighthouse in the fog");
    expect(await searchIndex(server, "lighthouse")).to.deep.equal([id]);
    expect(await pending(server)).to.deep.equal([]);
  });

  it("commits the pass without an fsync, then restores the writer's safety level", async function () {
    await sendToChannel(u.hamlet, "Denmark", "ramparts", "settled");
    if (isPostgres(server.app.db.knex)) return;
    const rows = await server.app.db.knex.raw<Array<{ synchronous: number }>>("PRAGMA synchronous");
    expect(rows[0]!.synchronous).to.equal(2);
  });

  it("indexes a noted message that is indexed already once, not twice", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "ramparts", "A weathervane on the roof");
    await server.app.db.knex(SEARCH_PENDING_TABLE).insert({ message_id: id });
    // The next send's pass takes the note too.
    await sendToChannel(u.othello, "Denmark", "ramparts", "noted");
    expect(await searchIndex(server, "weathervane")).to.deep.equal([id]);
    expect(await pending(server)).to.deep.equal([]);
  });

  it("drops the note of a message deleted before its pass", async function () {
    await server.app.db.knex(SEARCH_PENDING_TABLE).insert({ message_id: 999_999 });
    await sendToChannel(u.othello, "Denmark", "ramparts", "another");
    expect(await pending(server)).to.deep.equal([]);
  });

  it("indexes at start-up what a crash between the commit and the pass left unindexed", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "ramparts", "The albatross circles");
    // What such a crash leaves: the message and its note committed, no index entry.
    await removeFromIndex(server.app.db.knex, [id]);
    await server.app.db.knex(SEARCH_PENDING_TABLE).insert({ message_id: id });
    expect(await searchIndex(server, "albatross")).to.deep.equal([]);
    await server.stop();

    server = await startTestServer({}, { dataDir: server.dataDir });
    expect(await searchIndex(server, "albatross")).to.deep.equal([id]);
    expect(await pending(server)).to.deep.equal([]);
  });
});
