import { expect } from "chai";
import { doCreateUser } from "../../src/actions/user-create.js";
import { Client, expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";

describe("event queues: /register, /events", function () {
  let server: TestServer;
  let realm: TestRealm;

  before(async function () {
    server = await startTestServer({ heartbeat_interval_secs: 1, idle_queue_timeout_secs: 600 });
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  const createUser = (name: string) =>
    server.app.db.transaction((tx) =>
      doCreateUser(server.app, tx, { realmId: realm.id, email: `${name}@zulip.test`, fullName: name }),
    );

  it("registers a queue with Zulip's always-present keys", async function () {
    const state = await register(realm.users.hamlet!.client, { fetch_event_types: ["realm"] });
    expect(state.queue_id).to.be.a("string").and.not.empty;
    expect(state.last_event_id).to.equal(-1);
    expect(state.zulip_feature_level).to.equal(496);
    expect(state.zulip_version).to.be.a("string").and.not.empty;
    expect(state.zulip_merge_base).to.be.a("string");
    expect(state.idle_queue_timeout_secs).to.equal(600);
    expect(state.realm_name).to.equal("Elsinore");
    expect(state).not.to.have.property("realm_users");
  });

  it("returns the state of every type when no types are given", async function () {
    const state = await register(realm.users.hamlet!.client);
    expect(state).to.include.keys("realm_name", "realm_users", "realm_non_active_users", "max_topic_length");
    expect(state.user_id).to.equal(realm.users.hamlet!.id);
  });

  it("honours idle_queue_timeout and refuses a value out of range", async function () {
    const client = realm.users.hamlet!.client;
    expect((await register(client, { idle_queue_timeout: 120 })).idle_queue_timeout_secs).to.equal(120);
    expect((await register(client, { idle_queue_timeout: "mobile" })).idle_queue_timeout_secs).to.equal(
      43200,
    );
    expect((await register(client, { idle_queue_timeout: 10 ** 9 })).idle_queue_timeout_secs).to.equal(
      604800,
    );
    expect((await register(client, { idle_queue_timeout: 0 })).idle_queue_timeout_secs).to.equal(600);
    expectError(
      await client.post("/register", { idle_queue_timeout: -5 }),
      400,
      "idle_queue_timeout is too small",
    );
    expectError(
      await client.post("/register", { idle_queue_timeout: "soon" }),
      400,
      "Invalid idle_queue_timeout",
    );
  });

  it("delivers an event, and acknowledging with last_event_id discards it", async function () {
    const client = realm.users.hamlet!.client;
    const { queue_id } = await register(client, { event_types: ["realm_user"] });
    await createUser("horatio");
    const first = await pendingEvents(client, queue_id);
    expect(first).to.have.lengthOf(1);
    expect(first[0]).to.include({ type: "realm_user", op: "add", id: 0 });
    expect(first[0]!.person).to.include({ full_name: "horatio", is_active: true });
    // Not acknowledged yet: the same event again.
    expect(await pendingEvents(client, queue_id)).to.have.lengthOf(1);
    expect(await pendingEvents(client, queue_id, 0)).to.deep.equal([]);
  });

  it("filters by event_types", async function () {
    const client = realm.users.othello!.client;
    const { queue_id } = await register(client, { event_types: ["message"] });
    await createUser("laertes");
    expect(await pendingEvents(client, queue_id)).to.deep.equal([]);
  });

  it("wakes a parked long-poll as soon as an event is committed", async function () {
    const client = realm.users.hamlet!.client;
    const { queue_id } = await register(client, { event_types: ["realm_user"] });
    const poll = client.get("/events", { queue_id, last_event_id: -1 });
    await new Promise((r) => setTimeout(r, 50));
    await createUser("fortinbras");
    const body = expectSuccess(await poll);
    expect(body.events).to.have.lengthOf(1);
    expect(body.events[0]).to.include({ type: "realm_user", op: "add" });
    expect(body.queue_id).to.equal(queue_id);
  });

  it("ends an idle long-poll with a heartbeat", async function () {
    const client = realm.users.hamlet!.client;
    const { queue_id } = await register(client, { event_types: ["message"] });
    const started = Date.now();
    const body = expectSuccess(await client.get("/events", { queue_id, last_event_id: -1 }));
    expect(body.events).to.deep.equal([{ type: "heartbeat", id: 0 }]);
    expect(Date.now() - started).to.be.at.least(900);
  });

  it("garbage-collects idle queues: later fetches get BAD_EVENT_QUEUE_ID", async function () {
    const client = realm.users.hamlet!.client;
    const { queue_id } = await register(client, { idle_queue_timeout: 60 });
    server.clock.advance(30_000);
    server.app.events.collectGarbage();
    expectSuccess(await client.get("/events", { queue_id, dont_block: true }));
    server.clock.advance(61_000);
    server.app.events.collectGarbage();
    const res = await client.get("/events", { queue_id, dont_block: true });
    expectError(res, 400, `Bad event queue ID: ${queue_id}`, "BAD_EVENT_QUEUE_ID");
    expect(res.body.queue_id).to.equal(queue_id);
  });

  it("never lets one user read or delete another user's queue", async function () {
    const { queue_id } = await register(realm.users.hamlet!.client);
    const other = realm.users.othello!.client;
    expectError(
      await other.get("/events", { queue_id, dont_block: true }),
      400,
      `Bad event queue ID: ${queue_id}`,
      "BAD_EVENT_QUEUE_ID",
    );
    expectError(
      await other.delete("/events", { queue_id }),
      400,
      `Bad event queue ID: ${queue_id}`,
      "BAD_EVENT_QUEUE_ID",
    );
    expectSuccess(await realm.users.hamlet!.client.get("/events", { queue_id, dont_block: true }));
  });

  it("deletes a queue (queue_id in the body or, as zulip-js sends it, the query)", async function () {
    const client = realm.users.hamlet!.client;
    const a = await register(client);
    expectSuccess(await client.delete("/events", { queue_id: a.queue_id }));
    expectError(
      await client.get("/events", { queue_id: a.queue_id, dont_block: true }),
      400,
      `Bad event queue ID: ${a.queue_id}`,
      "BAD_EVENT_QUEUE_ID",
    );
    const b = await register(client);
    expectSuccess(await client.delete("/events", { queue_id: b.queue_id }, { inQuery: true }));
    expectError(
      await client.delete("/events", { queue_id: b.queue_id }),
      400,
      `Bad event queue ID: ${b.queue_id}`,
      "BAD_EVENT_QUEUE_ID",
    );
  });

  it("accepts zulip-js's event_types=null (all types) and plain-text booleans", async function () {
    const client = realm.users.hamlet!.client;
    const res = await client.post(
      "/register",
      { event_types: "null", apply_markdown: "true" },
      { encoding: "multipart" },
    );
    const body = expectSuccess(res);
    expect(body).to.include.keys("realm_users", "realm_name");
    // zulip-js sends every GET parameter as plain text.
    const events = await client.get("/events", {
      queue_id: body.queue_id,
      last_event_id: "-1",
      dont_block: "true",
    });
    expect(expectSuccess(events).events).to.deep.equal([]);
  });

  it("validates register parameters", async function () {
    const client = realm.users.hamlet!.client;
    expectError(
      await client.post("/register", { event_types: "[message" }),
      400,
      "event_types is not valid JSON",
    );
    expectError(await client.post("/register", { event_types: { a: 1 } }), 400, "event_types is not a list");
    expectError(await client.post("/register", { event_types: [1] }), 400, "event_types[0] is not a string");
    expectError(
      await client.post("/register", { client_capabilities: { bulk_message_deletion: "yes" } }),
      400,
      'client_capabilities["bulk_message_deletion"] is not a boolean',
    );
    expectError(
      await client.post("/register", { include_subscribers: "sometimes" }),
      400,
      "Invalid include_subscribers",
    );
    expectError(await client.post("/register", { narrow: [["is"]] }), 400, "narrow[0] is too short");
    expectError(
      await client.get("/events", {}),
      400,
      "Missing 'queue_id' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await client.get("/events", { queue_id: "x", last_event_id: "abc" }),
      400,
      "last_event_id is not an integer",
    );
  });

  it("register state plus realm_user events equals a fresh register", async function () {
    const client = realm.users.iago!.client;
    const events = await verifyRegisterParity(
      client,
      { fetch_event_types: ["realm_user"], event_types: ["realm_user"] },
      async () => {
        await createUser("rosencrantz");
        await createUser("guildenstern");
      },
    );
    expect(events.map((e) => `${e.type}/${e.op}`)).to.deep.equal(["realm_user/add", "realm_user/add"]);
  });

  it("keeps a client's queue and its undelivered events across a graceful restart", async function () {
    const restartable = await startTestServer({}, { keepDataDir: true });
    try {
      const cast = await restartable.factory.realm({ hamlet: 400 });
      const hamlet = cast.users.hamlet!;
      const { queue_id } = await register(hamlet.client, { event_types: ["realm_user"] });
      await restartable.app.db.transaction((tx) =>
        doCreateUser(restartable.app, tx, {
          realmId: cast.id,
          email: "yorick@zulip.test",
          fullName: "Yorick",
        }),
      );
      await restartable.stop({ saveQueues: true });
      const restarted = await startTestServer({}, { dataDir: restartable.dataDir });
      try {
        const client = hamlet.client;
        const moved = new Client(restarted.url, client.credentials);
        const events = await pendingEvents(moved, queue_id);
        expect(events).to.have.lengthOf(1);
        expect(events[0]).to.include({ type: "realm_user", op: "add", id: 0 });
        expect(events[0]!.person.full_name).to.equal("Yorick");
      } finally {
        await restarted.close();
      }
    } finally {
      await restartable.close();
    }
  });
});
