import { rmSync } from "node:fs";
import { expect } from "chai";
import { nowSeconds } from "../../src/clock.js";
import {
  cast,
  channelMessages,
  createChannel,
  deactivateUser,
  directMessagesTo,
  type Cast,
} from "../helpers/channels.js";
import { Client, expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { TestClock } from "../helpers/clock.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

type Scheduled = Record<string, unknown>;

describe("scheduled messages", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let denmark: number;

  before(async function () {
    server = await startTestServer();
    // Due times are whole seconds: on a clock that also runs in real time, a slow request
    // between reading now() and advancing could carry a message past its due second early.
    server.clock.freeze();
    realm = await server.factory.realm();
    u = cast(realm);
    denmark = await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
  });
  after(async function () {
    await server.close();
  });

  const now = () => nowSeconds(server.clock);
  const list = async (user: TestUser = u.hamlet) =>
    expectSuccess(await user.client.get("/scheduled_messages")).scheduled_messages as Scheduled[];
  const schedule = (params: Params, user: TestUser = u.hamlet) =>
    user.client.post("/scheduled_messages", {
      type: "stream",
      to: denmark,
      topic: "plans",
      content: "Hello",
      scheduled_delivery_timestamp: now() + 3600,
      ...params,
    });
  const scheduled = async (params: Params, user: TestUser = u.hamlet) =>
    expectSuccess(await schedule(params, user)).scheduled_message_id as number;
  /** What a user sent to a channel (not the channel's notices). */
  const sentBy = async (user: TestUser, channel: number) =>
    (await channelMessages(server, channel)).filter((m) => m.sender_id === user.id);
  /** Moves time on and waits for the delivery timer to send what fell due. */
  const advance = async (seconds: number) => {
    server.clock.advance(seconds * 1000);
    await server.app.scheduledDelivery.idle();
  };
  const cleanUp = async (user: TestUser = u.hamlet) => {
    for (const item of await list(user)) {
      expectSuccess(await user.client.delete(`/scheduled_messages/${item.scheduled_message_id as number}`));
    }
  };
  afterEach(async function () {
    await cleanUp();
    await cleanUp(u.othello);
  });

  it("schedules, lists (soonest first), edits and deletes messages", async function () {
    const at = now() + 7200;
    const later = await scheduled({ content: "**Later**", scheduled_delivery_timestamp: at });
    const sooner = await scheduled({
      type: "direct",
      to: JSON.stringify([u.othello.id]),
      content: "Sooner",
      scheduled_delivery_timestamp: at - 60,
    });
    expect(await list()).to.deep.equal([
      {
        scheduled_message_id: sooner,
        type: "private",
        to: [u.othello.id],
        content: "Sooner",
        rendered_content: "<p>Sooner</p>",
        scheduled_delivery_timestamp: at - 60,
        failed: false,
      },
      {
        scheduled_message_id: later,
        type: "stream",
        to: denmark,
        topic: "plans",
        content: "**Later**",
        rendered_content: "<p><strong>Later</strong></p>",
        scheduled_delivery_timestamp: at,
        failed: false,
      },
    ]);
    expect(await list(u.othello)).to.deep.equal([]);

    expectSuccess(
      await u.hamlet.client.patch(`/scheduled_messages/${later}`, {
        content: "Edited",
        topic: "new plans",
        scheduled_delivery_timestamp: at - 120,
      }),
    );
    expect((await list())[0]).to.deep.include({
      scheduled_message_id: later,
      topic: "new plans",
      content: "Edited",
      rendered_content: "<p>Edited</p>",
      scheduled_delivery_timestamp: at - 120,
    });
    // A new addressee: a channel needs a topic.
    expectSuccess(
      await u.hamlet.client.patch(`/scheduled_messages/${sooner}`, {
        type: "stream",
        to: denmark,
        topic: "moved",
      }),
    );
    expect((await list())[1]).to.deep.include({
      type: "stream",
      to: denmark,
      topic: "moved",
      content: "Sooner",
    });

    expectSuccess(await u.hamlet.client.delete(`/scheduled_messages/${later}`));
    expect((await list()).map((m) => m.scheduled_message_id)).to.deep.equal([sooner]);
  });

  it("refuses what POST /messages would, and times not in the future", async function () {
    const secret = await createChannel(u.othello, "secret", [u.othello], { invite_only: true });
    const future = "Scheduled delivery time must be in the future.";
    expectError(await schedule({ scheduled_delivery_timestamp: now() }), 400, future);
    expectError(await schedule({ scheduled_delivery_timestamp: now() - 60 }), 400, future);
    expectError(await schedule({ content: "" }), 400, "Message must not be empty");
    expectError(await schedule({ to: secret }), 400, "Not authorized to send to channel 'secret'");
    expectError(await schedule({ to: "[1, 2]" }), 400, "Invalid data type for channel ID");
    expectError(await schedule({ type: "direct", to: "[999999]" }), 400, "Invalid user ID 999999");
    expectError(await schedule({ type: "huddle" }), 400, "Invalid type");
    expect(await list()).to.deep.equal([]);
  });

  it("refuses edits that fail the checks, changing nothing", async function () {
    const id = await scheduled({});
    const before = await list();
    const patch = (params: Params) => u.hamlet.client.patch(`/scheduled_messages/${id}`, params);
    expectError(await patch({}), 400, "Nothing to change");
    expectError(
      await patch({ type: "direct" }),
      400,
      "Recipient required when updating type of scheduled message.",
    );
    expectError(
      await patch({ type: "stream", to: denmark }),
      400,
      "Topic required when updating scheduled message type to channel.",
    );
    expectError(
      await patch({ scheduled_delivery_timestamp: now() - 1 }),
      400,
      "Scheduled delivery time must be in the future.",
    );
    expectError(await patch({ content: "" }), 400, "Message must not be empty");
    expectError(await patch({ type: "direct", to: "[999999]" }), 400, "Invalid user ID 999999");
    expect(await list()).to.deep.equal(before);
  });

  it("only the sender sees, edits or deletes a scheduled message", async function () {
    const id = await scheduled({ content: "Mine" });
    const before = await list();
    expect(await list(u.othello)).to.deep.equal([]);
    for (const target of [id, 999_999]) {
      expectError(
        await u.othello.client.patch(`/scheduled_messages/${target}`, { content: "Stolen" }),
        404,
        "Scheduled message does not exist",
      );
      expectError(
        await u.othello.client.delete(`/scheduled_messages/${target}`),
        404,
        "Scheduled message does not exist",
      );
    }
    expect(await list()).to.deep.equal(before);
  });

  it("sends a message when it is due, once, and no longer lists it", async function () {
    const sentMessages = () => sentBy(u.hamlet, denmark);
    const before = (await sentMessages()).length;
    const id = await scheduled({ content: "On time", scheduled_delivery_timestamp: now() + 600 });
    await advance(599);
    expect((await sentMessages()).length).to.equal(before);
    await advance(2);
    const sent = (await sentMessages()).slice(before);
    expect(sent).to.have.lengthOf(1);
    expect(sent[0]).to.deep.include({ sender_id: u.hamlet.id, topic: "plans", content: "On time" });
    expect(await list()).to.deep.equal([]);
    // Delivered: no longer the sender's to change.
    expectError(
      await u.hamlet.client.patch(`/scheduled_messages/${id}`, { content: "Too late" }),
      400,
      "Scheduled message was already sent",
    );
    await advance(600);
    expect((await sentMessages()).length).to.equal(before + 1);
  });

  it("marks a message that can no longer be sent failed, and tells the sender", async function () {
    const closing = await createChannel(u.hamlet, "closing", [u.hamlet]);
    const id = await scheduled({ to: closing, content: "Never", scheduled_delivery_timestamp: now() + 60 });
    expectSuccess(await u.iago.client.delete(`/streams/${closing}`));
    const dmsBefore = (await directMessagesTo(server, u.hamlet)).length;
    await advance(61);
    expect(await sentBy(u.hamlet, closing)).to.deep.equal([]);
    expect(await list()).to.deep.equal([
      {
        scheduled_message_id: id,
        type: "stream",
        to: closing,
        topic: "plans",
        content: "Never",
        rendered_content: "<p>Never</p>",
        scheduled_delivery_timestamp: (await list())[0]!.scheduled_delivery_timestamp,
        failed: true,
      },
    ]);
    const notices = (await directMessagesTo(server, u.hamlet)).slice(dmsBefore);
    expect(notices).to.have.lengthOf(1);
    expect(notices[0]!.content).to.match(/^The message you scheduled for <time:[^>]+> was not sent because/);
    // A failed message needs a new time before anything else.
    expectError(
      await u.hamlet.client.patch(`/scheduled_messages/${id}`, { content: "Again" }),
      400,
      "Scheduled delivery time must be in the future.",
    );
  });

  it("a deactivated sender's message fails silently", async function () {
    const sub = await server.factory.realm();
    const c = cast(sub);
    const channel = await createChannel(c.hamlet, "quiet", [c.hamlet]);
    const id = await scheduled({ to: channel, scheduled_delivery_timestamp: now() + 30 }, c.hamlet);
    await deactivateUser(server, sub, c.hamlet);
    await advance(31);
    const row = await server.app.knex("scheduled_messages").where({ id }).first();
    expect(row).to.deep.include({ failure_message: "Account is deactivated" });
    expect(await sentBy(c.hamlet, channel)).to.deep.equal([]);
    expect(await directMessagesTo(server, c.hamlet)).to.deep.equal([]);
  });

  it("sends scheduled_messages events to the sender only; register parity", async function () {
    const other = await register(u.othello.client, { event_types: ["scheduled_messages"] });
    let [kept, edited, removed] = [0, 0, 0];
    const params = { fetch_event_types: ["scheduled_messages"], event_types: ["scheduled_messages"] };
    const events = await verifyRegisterParity(u.hamlet.client, params, async () => {
      kept = await scheduled({ content: "kept", scheduled_delivery_timestamp: now() + 5000 });
      edited = await scheduled({ content: "edited", scheduled_delivery_timestamp: now() + 4000 });
      removed = await scheduled({ content: "removed", scheduled_delivery_timestamp: now() + 3000 });
      const due = await scheduled({ content: "due", scheduled_delivery_timestamp: now() + 100 });
      expectSuccess(
        await u.hamlet.client.patch(`/scheduled_messages/${edited}`, {
          scheduled_delivery_timestamp: now() + 6000,
        }),
      );
      expectSuccess(await u.hamlet.client.delete(`/scheduled_messages/${removed}`));
      await advance(101);
      expect((await list()).map((m) => m.scheduled_message_id)).to.not.include(due);
    });
    expect(events.map((e) => `${e.type}/${e.op}`)).to.deep.equal([
      "scheduled_messages/add",
      "scheduled_messages/add",
      "scheduled_messages/add",
      "scheduled_messages/add",
      "scheduled_messages/update",
      "scheduled_messages/remove",
      "scheduled_messages/remove",
    ]);
    expect(events[4]!.scheduled_message).to.deep.include({ scheduled_message_id: edited });
    expect(events[5]).to.deep.include({ scheduled_message_id: removed });
    expect((await list()).map((m) => m.scheduled_message_id)).to.deep.equal([kept, edited]);
    expect(await pendingEvents(u.othello.client, other.queue_id as string)).to.deep.equal([]);
  });

  it("register parity when a delivery fails (an update event)", async function () {
    const closing = await createChannel(u.hamlet, "closing too", [u.hamlet]);
    const events = await verifyRegisterParity(
      u.hamlet.client,
      { fetch_event_types: ["scheduled_messages"], event_types: ["scheduled_messages"] },
      async () => {
        await scheduled({ to: closing, scheduled_delivery_timestamp: now() + 60 });
        expectSuccess(await u.iago.client.delete(`/streams/${closing}`));
        await advance(61);
      },
    );
    expect(events.map((e) => `${e.type}/${e.op}`)).to.deep.equal([
      "scheduled_messages/add",
      "scheduled_messages/update",
    ]);
    expect(events[1]!.scheduled_message).to.deep.include({ failed: true });
  });
});

describe("scheduled messages across a restart", function () {
  const channelMessagesIn = async (server: TestServer, channel: number, topic: string) =>
    (await channelMessages(server, channel)).filter((m) => m.topic === topic);
  it("sends what fell due while the server was down, once", async function () {
    const first = await startTestServer({}, { keepDataDir: true });
    const servers: TestServer[] = [first];
    try {
      const realm = await first.factory.realm({ hamlet: 400, othello: 400 });
      const hamlet = realm.users.hamlet!;
      const channel = await createChannel(hamlet, "Elsinore", [hamlet]);
      const at = nowSeconds(first.clock) + 3600;
      const res = await hamlet.client.post("/scheduled_messages", {
        type: "stream",
        to: channel,
        topic: "ghost",
        content: "Sent while down",
        scheduled_delivery_timestamp: at,
      });
      const id = expectSuccess(res).scheduled_message_id as number;
      await first.stop();

      // The server comes back two hours later.
      const late = new TestClock();
      late.advance(2 * 3600 * 1000);
      const second = await startTestServer({}, { dataDir: first.dataDir, keepDataDir: true, clock: late });
      servers.push(second);
      await second.app.scheduledDelivery.idle();
      const sent = await channelMessagesIn(second, channel, "ghost");
      expect(sent.map((m) => m.content)).to.deep.equal(["Sent while down"]);
      const client = new Client(second.url, hamlet.client.credentials);
      expect(expectSuccess(await client.get("/scheduled_messages")).scheduled_messages).to.deep.equal([]);
      await second.stop();

      // Another restart sends nothing again.
      const third = await startTestServer({}, { dataDir: first.dataDir, keepDataDir: true, clock: late });
      servers.push(third);
      await third.app.scheduledDelivery.idle();
      expect((await channelMessagesIn(third, channel, "ghost")).length).to.equal(1);
      const row = await third.app.knex("scheduled_messages").where({ id }).first();
      expect(row.delivered_message_id).to.equal(sent[0]!.id);
    } finally {
      for (const server of servers.reverse()) await server.close();
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });

  it("arms the timer at start-up for what is due later", async function () {
    const first = await startTestServer({}, { keepDataDir: true });
    const servers: TestServer[] = [first];
    try {
      const realm = await first.factory.realm({ hamlet: 400 });
      const hamlet = realm.users.hamlet!;
      const channel = await createChannel(hamlet, "Elsinore", [hamlet]);
      await hamlet.client.post("/scheduled_messages", {
        type: "stream",
        to: channel,
        topic: "later",
        content: "After the restart",
        scheduled_delivery_timestamp: nowSeconds(first.clock) + 3600,
      });
      await first.stop();
      const second = await startTestServer({}, { dataDir: first.dataDir, keepDataDir: true });
      servers.push(second);
      await second.app.scheduledDelivery.idle();
      expect(await channelMessagesIn(second, channel, "later")).to.deep.equal([]);
      second.clock.advance(3601 * 1000);
      await second.app.scheduledDelivery.idle();
      expect((await channelMessagesIn(second, channel, "later")).map((m) => m.content)).to.deep.equal([
        "After the restart",
      ]);
    } finally {
      for (const server of servers.reverse()) await server.close();
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
