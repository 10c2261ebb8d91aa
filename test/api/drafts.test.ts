import { expect } from "chai";
import { createChannel } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

type Draft = Record<string, unknown>;

describe("drafts", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm: TestRealm = await server.factory.realm();
    const u = realm.users;
    const hamlet = u.hamlet!;
    const drafts = async (user = hamlet) => {
      const body = expectSuccess(await user.client.get("/drafts"));
      expect(body.count).to.equal((body.drafts as Draft[]).length);
      return body.drafts as Draft[];
    };
    const create = async (list: Draft[], user = hamlet) =>
      expectSuccess(await user.client.post("/drafts", { drafts: list })).ids as number[];
    const post = (list: unknown, user = hamlet) => user.client.post("/drafts", { drafts: list } as Params);
    return { realm, u, hamlet, drafts, create, post };
  };

  const dm = (to: number[], content = "Hello", extra: Draft = {}): Draft => ({
    type: "private",
    to,
    topic: "",
    content,
    ...extra,
  });

  it("creates, lists, edits and deletes drafts of every kind", async function () {
    const { u, hamlet, drafts, create } = await fresh();
    const general = await createChannel(hamlet, "drafting", [hamlet]);
    const ids = await create([
      { type: "stream", to: [general], topic: "plans", content: "  The **plan**  ", timestamp: 1000 },
      dm([u.othello!.id], "To Othello", { timestamp: 2000.75 }),
      { type: "", to: [], topic: "ignored", content: "Unaddressed", timestamp: 3000 },
    ]);
    expect(ids).to.have.lengthOf(3);
    // Least recently edited first, as Zulip's GET /drafts orders them.
    expect(await drafts()).to.deep.equal([
      { id: ids[0], type: "stream", to: [general], topic: "plans", content: "The **plan**", timestamp: 1000 },
      { id: ids[1], type: "private", to: [u.othello!.id], topic: "", content: "To Othello", timestamp: 2000 },
      { id: ids[2], type: "", to: [], topic: "", content: "Unaddressed", timestamp: 3000 },
    ]);

    // A draft without a timestamp was edited now.
    const now = Math.floor(server.clock.nowMs() / 1000);
    expectSuccess(
      await hamlet.client.patch(`/drafts/${ids[0]}`, {
        draft: { type: "stream", to: [general], topic: "new plans", content: "Revised" },
      }),
    );
    const edited = (await drafts()).find((d) => d.id === ids[0])!;
    expect(edited).to.deep.include({ topic: "new plans", content: "Revised" });
    expect(edited.timestamp).to.be.within(now - 5, now + 5);

    expectSuccess(await hamlet.client.delete(`/drafts/${ids[1]}`));
    expect((await drafts()).map((d) => d.id)).to.deep.equal([ids[2], ids[0]]);
  });

  it("addresses direct message drafts as Zulip's recipients do", async function () {
    const { u, hamlet, drafts, create } = await fresh();
    const [othello, cordelia] = [u.othello!, u.cordelia!];
    await create([
      dm([othello.id, hamlet.id], "one", { timestamp: 1 }),
      dm([hamlet.id], "self", { timestamp: 2 }),
      dm([hamlet.id, cordelia.id, othello.id, cordelia.id], "group", { timestamp: 3 }),
      dm([], "nobody yet", { timestamp: 4 }),
    ]);
    expect((await drafts()).map((d) => [d.type, d.to])).to.deep.equal([
      ["private", [othello.id]],
      ["private", [hamlet.id]],
      ["private", [othello.id, cordelia.id].sort((a, b) => a - b)],
      ["", []],
    ]);
  });

  it("truncates long topics and content; keeps timestamps to whole seconds", async function () {
    const { hamlet, drafts, create } = await fresh();
    const channel = await createChannel(hamlet, "long", [hamlet]);
    await create([
      { type: "stream", to: [channel], topic: "t".repeat(70), content: "c".repeat(10_050), timestamp: 12.9 },
    ]);
    const [draft] = await drafts();
    expect(draft!.topic).to.equal(`${"t".repeat(57)}...`);
    expect(draft!.content).to.equal(`${"c".repeat(10_000 - 20)}\n[message truncated]`);
    expect(draft!.timestamp).to.equal(12);
  });

  it("refuses malformed drafts with Zulip's messages, saving none of the batch", async function () {
    const { hamlet, drafts, post } = await fresh();
    const ok = dm([], "fine");
    expectError(
      await hamlet.client.post("/drafts", {}),
      400,
      "Missing 'drafts' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(await post({ type: "" }), 400, "drafts is not a list");
    expectError(await post([ok, { ...ok, type: "huddle" }]), 400, 'Invalid drafts[1]["type"]');
    expectError(await post([{ type: "", to: [], topic: "" }]), 400, "content key is missing from drafts[0]");
    expectError(await post([{ ...ok, id: 5 }]), 400, 'Argument "id" at drafts[0] is unexpected');
    expectError(await post([{ ...ok, to: ["x"] }]), 400, 'drafts[0]["to"][0] is not an integer');
    expectError(await post([{ ...ok, content: " \n " }]), 400, 'drafts[0]["content"] cannot be blank');
    expectError(await post([{ ...ok, content: "a\u0000b" }]), 400, "Message must not contain null bytes");
    expectError(await post([{ ...ok, timestamp: -1 }]), 400, "Timestamp must not be negative.");
    expectError(
      await post([ok, { ...ok, timestamp: "soon" }]),
      400,
      'drafts[1]["timestamp"] is not a number',
    );
    expect(await drafts()).to.deep.equal([]);
  });

  it("checks channel drafts: one accessible channel, a topic without NUL bytes", async function () {
    const { u, hamlet, drafts, post } = await fresh();
    const mine = await createChannel(hamlet, "mine", [hamlet]);
    const secret = await createChannel(u.othello!, "secret", [u.othello!], { invite_only: true });
    const stream = (to: number[], topic = "t"): Draft => ({ type: "stream", to, topic, content: "x" });
    const exactlyOne = "Must specify exactly 1 channel ID for channel messages";
    expectError(await post([stream([])]), 400, exactlyOne);
    expectError(await post([stream([mine, mine])]), 400, exactlyOne);
    expectError(await post([stream([secret])]), 400, "Invalid channel ID");
    expectError(await post([stream([999_999])]), 400, "Invalid channel ID");
    expectError(await post([stream([mine], "a\u0000b")]), 400, "Topic must not contain null bytes");
    expect(await drafts()).to.deep.equal([]);
    // Othello, subscribed, may keep a draft there.
    expectSuccess(await post([stream([secret])], u.othello));
  });

  it("checks direct message drafts: existing, active users", async function () {
    const { u, drafts, post } = await fresh();
    expectError(await post([dm([999_999])]), 400, "Invalid user ID 999999");
    expectSuccess(await u.iago!.client.delete(`/users/${u.cordelia!.id}`));
    expectError(await post([dm([u.cordelia!.id])]), 400, `'${u.cordelia!.email}' is no longer using Zulip.`);
    expect(await drafts()).to.deep.equal([]);
  });

  it("refuses an edit that fails the checks, keeping the draft", async function () {
    const { u, hamlet, drafts, create } = await fresh();
    const [id] = await create([dm([u.othello!.id], "keep me", { timestamp: 5 })]);
    const before = await drafts();
    const patch = (draft: unknown) => hamlet.client.patch(`/drafts/${id}`, { draft } as Params);
    expectError(
      await hamlet.client.patch(`/drafts/${id}`, {}),
      400,
      "Missing 'draft' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(await patch(dm([999_999])), 400, "Invalid user ID 999999");
    expectError(await patch({ ...dm([]), content: "" }), 400, 'draft["content"] cannot be blank');
    expect(await drafts()).to.deep.equal(before);
  });

  it("only the owner sees, edits or deletes a draft (missing and foreign look alike)", async function () {
    const { u, hamlet, drafts, create } = await fresh();
    const othello = u.othello!;
    const [id] = await create([dm([othello.id], "private thoughts", { timestamp: 7 })]);
    const before = await drafts();
    expect(await drafts(othello)).to.deep.equal([]);
    const replacement = { draft: dm([hamlet.id], "stolen") };
    for (const target of [id, 999_999]) {
      expectError(await othello.client.patch(`/drafts/${target}`, replacement), 404, "Draft does not exist");
      expectError(await othello.client.delete(`/drafts/${target}`), 404, "Draft does not exist");
    }
    expectError(await hamlet.client.delete("/drafts/999999"), 404, "Draft does not exist");
    expect(await drafts()).to.deep.equal(before);
  });

  it("sends drafts events to the owner only; state plus events equals a fresh register", async function () {
    const { u, hamlet, create } = await fresh();
    const othello = u.othello!;
    const [kept] = await create([dm([othello.id], "old", { timestamp: 100 })]);
    const other = await register(othello.client, { event_types: ["drafts"] });
    let ids: number[] = [];
    const events = await verifyRegisterParity(hamlet.client, { fetch_event_types: ["drafts"] }, async () => {
      ids = await create([dm([othello.id], "a", { timestamp: 300 }), dm([], "b", { timestamp: 200 })]);
      expectSuccess(
        await hamlet.client.patch(`/drafts/${kept}`, { draft: dm([], "newer", { timestamp: 400 }) }),
      );
      expectSuccess(await hamlet.client.delete(`/drafts/${ids[1]}`));
    });
    expect(events.map((e) => `${e.type}/${e.op}`)).to.deep.equal([
      "drafts/add",
      "drafts/update",
      "drafts/remove",
    ]);
    expect(events[0]!.drafts).to.deep.equal([
      { id: ids[0], type: "private", to: [othello.id], topic: "", content: "a", timestamp: 300 },
      { id: ids[1], type: "", to: [], topic: "", content: "b", timestamp: 200 },
    ]);
    expect(events[1]!.draft).to.deep.equal({
      id: kept,
      type: "",
      to: [],
      topic: "",
      content: "newer",
      timestamp: 400,
    });
    expect(events[2]).to.deep.include({ draft_id: ids[1] });
    // Register lists the most recently edited first.
    const state = await register(hamlet.client, { fetch_event_types: ["drafts"] });
    expect((state.drafts as Draft[]).map((d) => d.id)).to.deep.equal([kept, ids[0]]);
    expect(await pendingEvents(othello.client, other.queue_id as string)).to.deep.equal([]);
  });

  it("turning enable_drafts_synchronization off forgets the server's drafts and refuses the endpoints", async function () {
    const { u, hamlet, drafts, create, post } = await fresh();
    const [kept] = await create([dm([u.othello!.id], "kept elsewhere")]);
    const queue = await register(hamlet.client, { event_types: ["drafts"] });
    expectSuccess(await hamlet.client.patch("/settings", { enable_drafts_synchronization: false }));
    expect(await server.app.knex("drafts").where({ user_id: hamlet.id })).to.deep.equal([]);
    // Nothing was deleted from the clients' point of view: no drafts events.
    expect(await pendingEvents(hamlet.client, queue.queue_id as string)).to.deep.equal([]);
    const refused = "User has disabled synchronizing drafts.";
    expectError(await hamlet.client.get("/drafts"), 400, refused);
    expectError(await post([dm([], "new")]), 400, refused);
    expectError(await hamlet.client.patch(`/drafts/${kept}`, { draft: dm([], "edited") }), 400, refused);
    expectError(await hamlet.client.delete(`/drafts/${kept}`), 400, refused);
    expect((await register(hamlet.client, { fetch_event_types: ["drafts"] })).drafts).to.deep.equal([]);
    // Others are not affected; on again, the user starts afresh.
    expect(await drafts(u.othello)).to.deep.equal([]);
    expectSuccess(await hamlet.client.patch("/settings", { enable_drafts_synchronization: true }));
    expect(await drafts()).to.deep.equal([]);
    expect(await create([dm([], "again")])).to.have.lengthOf(1);
  });
});
