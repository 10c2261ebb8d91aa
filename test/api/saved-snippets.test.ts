import { expect } from "chai";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";

describe("saved snippets", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm: TestRealm = await server.factory.realm({ hamlet: 400, othello: 400 });
    const hamlet = realm.users.hamlet!.client;
    const snippets = async (client = hamlet) =>
      expectSuccess(await client.get("/saved_snippets")).saved_snippets as Array<Record<string, unknown>>;
    const create = async (params: Params) =>
      expectSuccess(await hamlet.post("/saved_snippets", params)).saved_snippet_id as number;
    return { hamlet, othello: realm.users.othello!.client, snippets, create };
  };

  it("creates, lists, edits and deletes the owner's snippets", async function () {
    const { hamlet, snippets, create } = await fresh();
    const now = Math.floor(server.clock.nowMs() / 1000);
    const id = await create({ title: " Greeting ", content: " Welcome to **Elsinore**. " });
    const [snippet] = await snippets();
    expect(snippet).to.deep.include({ id, title: "Greeting", content: "Welcome to **Elsinore**." });
    expect(snippet!.date_created).to.be.within(now - 5, now + 5);
    expectSuccess(await hamlet.patch(`/saved_snippets/${id}`, { content: "Farewell." }));
    expect(await snippets()).to.deep.equal([{ ...snippet, content: "Farewell." }]);
    expectSuccess(await hamlet.patch(`/saved_snippets/${id}`, {}));
    expectSuccess(await hamlet.delete(`/saved_snippets/${id}`));
    expect(await snippets()).to.deep.equal([]);
  });

  it("requires a bounded, non-blank title and content", async function () {
    const { hamlet, snippets, create } = await fresh();
    const post = (params: Params) => hamlet.post("/saved_snippets", params);
    expectError(await post({ content: "x" }), 400, "Missing 'title' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await post({ title: "x" }), 400, "Missing 'content' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await post({ title: "  ", content: "x" }), 400, "title cannot be blank");
    expectError(await post({ title: "x", content: "" }), 400, "content cannot be blank");
    expectError(
      await post({ title: "t".repeat(61), content: "x" }),
      400,
      "title is too long (limit: 60 characters)",
    );
    expectError(
      await post({ title: "x", content: "c".repeat(10001) }),
      400,
      "content is too long (limit: 10000 characters)",
    );
    const id = await create({ title: "t".repeat(60), content: "c".repeat(10000) });
    expectError(await hamlet.patch(`/saved_snippets/${id}`, { title: "" }), 400, "title cannot be blank");
    expect(await snippets()).to.have.lengthOf(1);
  });

  it("only the owner sees and changes a snippet", async function () {
    const { othello, snippets, create } = await fresh();
    const id = await create({ title: "Mine", content: "secret" });
    expect(await snippets(othello)).to.deep.equal([]);
    expectError(
      await othello.patch(`/saved_snippets/${id}`, { title: "Stolen" }),
      404,
      "Saved snippet does not exist.",
    );
    expectError(await othello.delete(`/saved_snippets/${id}`), 404, "Saved snippet does not exist.");
    expectError(await othello.delete("/saved_snippets/999999"), 404, "Saved snippet does not exist.");
    expect(await snippets()).to.deep.include({
      id,
      title: "Mine",
      content: "secret",
      date_created: (await snippets())[0]!.date_created,
    });
  });

  it("sends saved_snippets events to the owner only; state plus events equals a fresh register", async function () {
    const { hamlet, othello, create } = await fresh();
    const other = await register(othello, { event_types: ["saved_snippets"] });
    let id = 0;
    const events = await verifyRegisterParity(hamlet, {}, async () => {
      id = await create({ title: "One", content: "1" });
      const two = await create({ title: "Two", content: "2" });
      expectSuccess(await hamlet.patch(`/saved_snippets/${id}`, { title: "Uno" }));
      expectSuccess(await hamlet.delete(`/saved_snippets/${two}`));
    });
    expect(events.map((e) => `${e.type}/${e.op}`)).to.deep.equal([
      "saved_snippets/add",
      "saved_snippets/add",
      "saved_snippets/update",
      "saved_snippets/remove",
    ]);
    expect(events[2]!.saved_snippet).to.include({ id, title: "Uno", content: "1" });
    expect(events[3]).to.include({ saved_snippet_id: id + 1 });
    expect(await pendingEvents(othello, other.queue_id)).to.deep.equal([]);
  });
});
