import { expect } from "chai";
import { cast, createChannel, setRealmFields, subscribe, systemGroupId } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

type UserTopic = { stream_id: number; topic_name: string; last_updated: number; visibility_policy: number };

describe("topics a user mutes, unmutes or follows", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm: TestRealm = await server.factory.realm();
    const u = cast(realm);
    const verona = await createChannel(u.hamlet, "Verona", [u.hamlet, u.othello]);
    return { realm, u, verona };
  };
  const setTopic = (user: TestUser, params: Params) => user.client.post("/user_topics", params);
  const userTopics = async (user: TestUser, params: Params = {}) =>
    (await register(user.client, { fetch_event_types: ["user_topic"], ...params }))
      .user_topics as UserTopic[];
  const rows = (server: TestServer, user: TestUser): Promise<Array<Record<string, unknown>>> =>
    server.app.knex("user_topics").where({ user_id: user.id }).orderBy("rowid");

  describe("POST /user_topics", function () {
    it("sets each of the four policies, matching topics case-insensitively", async function () {
      const { u, verona } = await fresh();
      const now = Math.floor(server.clock.nowMs() / 1000);
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "Castle", visibility_policy: 1 }));
      const [muted] = await userTopics(u.hamlet);
      expect(muted).to.deep.include({ stream_id: verona, topic_name: "Castle", visibility_policy: 1 });
      // The clock runs in real time too: allow a second or two.
      expect(muted!.last_updated).to.be.within(now, now + 2);
      // Another case of the same topic: the row keeps its first spelling.
      server.clock.advance(60_000);
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "castle", visibility_policy: 3 }));
      const [followed] = await userTopics(u.hamlet);
      expect(followed).to.deep.include({ stream_id: verona, topic_name: "Castle", visibility_policy: 3 });
      expect(followed!.last_updated).to.be.within(now + 60, now + 62);
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "garden", visibility_policy: 2 }));
      expect((await userTopics(u.hamlet)).map((t) => [t.topic_name, t.visibility_policy])).to.deep.equal([
        ["Castle", 3],
        ["garden", 2],
      ]);
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "CASTLE", visibility_policy: 0 }));
      expect((await userTopics(u.hamlet)).map((t) => t.topic_name)).to.deep.equal(["garden"]);
      // Nobody else's policies change.
      expect(await userTopics(u.othello)).to.deep.equal([]);
    });

    it("names the empty topic by the realm's name for it, unless the client knows empty topics", async function () {
      const { u, verona } = await fresh();
      expectSuccess(
        await setTopic(u.hamlet, { stream_id: verona, topic: "general chat", visibility_policy: 1 }),
      );
      expect((await rows(server, u.hamlet))[0]).to.include({ topic_name: "", topic_key: "" });
      expect((await userTopics(u.hamlet))[0]!.topic_name).to.equal("general chat");
      const capable = { client_capabilities: { empty_topic_name: true } };
      expect((await userTopics(u.hamlet, capable))[0]!.topic_name).to.equal("");
      const legacy = await register(u.hamlet.client, { fetch_event_types: ["muted_topics"] });
      expect((legacy.muted_topics as unknown[][])[0]!.slice(0, 2)).to.deep.equal(["Verona", "general chat"]);
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "", visibility_policy: 3 }));
      });
      expect(events.find((e) => e.type === "user_topic")).to.include({ topic_name: "general chat" });
      await verifyRegisterParity(u.hamlet.client, capable, async () => {
        expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "", visibility_policy: 1 }));
      });
    });

    it("refuses bad parameters with Zulip's errors, changing nothing", async function () {
      const { u, verona } = await fresh();
      const post = (params: Params) => setTopic(u.hamlet, params);
      expectError(
        await post({ topic: "x", visibility_policy: 1 }),
        400,
        "Missing 'stream_id' argument",
        "REQUEST_VARIABLE_MISSING",
      );
      expectError(
        await post({ stream_id: verona, visibility_policy: 1 }),
        400,
        "Missing 'topic' argument",
        "REQUEST_VARIABLE_MISSING",
      );
      expectError(
        await post({ stream_id: verona, topic: "x" }),
        400,
        "Missing 'visibility_policy' argument",
        "REQUEST_VARIABLE_MISSING",
      );
      expectError(
        await post({ stream_id: verona, topic: "x", visibility_policy: 4 }),
        400,
        "Invalid visibility_policy",
      );
      expectError(
        await post({ stream_id: verona, topic: "x", visibility_policy: "muted" }),
        400,
        "visibility_policy is not an integer",
      );
      expectError(
        await post({ stream_id: "Verona", topic: "x", visibility_policy: 1 }),
        400,
        "stream_id is not an integer",
      );
      expectError(
        await post({ stream_id: verona, topic: "t".repeat(61), visibility_policy: 1 }),
        400,
        "topic is too long (limit: 60 characters)",
      );
      expectError(
        await post({ stream_id: 999999, topic: "x", visibility_policy: 1 }),
        400,
        "Invalid channel ID",
      );
      expectError(
        await post({ stream_id: 999999, topic: "x", visibility_policy: 0 }),
        400,
        "Invalid channel ID",
      );
      expect(await rows(server, u.hamlet)).to.deep.equal([]);
    });

    it("needs access to the channel to set a policy, but never to drop one", async function () {
      const { u } = await fresh();
      const secret = await createChannel(u.othello, "Secret", [u.othello, u.hamlet], { invite_only: true });
      const public_ = await createChannel(u.hamlet, "Open", [u.hamlet]);
      // Private and not subscribed; a guest in a public channel it is not subscribed to.
      expectError(
        await setTopic(u.cordelia, { stream_id: secret, topic: "plot", visibility_policy: 1 }),
        400,
        "Invalid channel ID",
      );
      expectError(
        await setTopic(u.polonius, { stream_id: public_, topic: "x", visibility_policy: 3 }),
        400,
        "Invalid channel ID",
      );
      // Another realm's channel does not exist here.
      const other = cast(await server.factory.realm(undefined, "Elsewhere"));
      const foreign = await createChannel(other.hamlet, "Foreign", [other.hamlet]);
      expectError(
        await setTopic(u.hamlet, { stream_id: foreign, topic: "x", visibility_policy: 1 }),
        400,
        "Invalid channel ID",
      );
      expectError(
        await setTopic(u.hamlet, { stream_id: foreign, topic: "x", visibility_policy: 0 }),
        400,
        "Invalid channel ID",
      );
      expect(await rows(server, u.cordelia)).to.deep.equal([]);
      expect(await rows(server, u.polonius)).to.deep.equal([]);
      expect(await rows(server, u.hamlet)).to.deep.equal([]);

      // Hamlet mutes a topic, then leaves the private channel: he may still drop the policy.
      expectSuccess(await setTopic(u.hamlet, { stream_id: secret, topic: "plot", visibility_policy: 1 }));
      expectSuccess(await u.hamlet.client.delete("/users/me/subscriptions", { subscriptions: ["Secret"] }));
      expectError(
        await setTopic(u.hamlet, { stream_id: secret, topic: "plot", visibility_policy: 3 }),
        400,
        "Invalid channel ID",
      );
      expect((await rows(server, u.hamlet))[0]).to.include({ visibility_policy: 1 });
      expectSuccess(await setTopic(u.hamlet, { stream_id: secret, topic: "plot", visibility_policy: 0 }));
      expect(await rows(server, u.hamlet)).to.deep.equal([]);
    });

    it("leaves archived channels' policies out of /register and refuses new ones there", async function () {
      const { u, verona } = await fresh();
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "castle", visibility_policy: 1 }));
      expectSuccess(await u.desdemona.client.delete(`/streams/${verona}`));
      expect(await userTopics(u.hamlet)).to.deep.equal([]);
      expect(
        (await register(u.hamlet.client, { fetch_event_types: ["muted_topics"] })).muted_topics,
      ).to.deep.equal([]);
      expectError(
        await setTopic(u.hamlet, { stream_id: verona, topic: "garden", visibility_policy: 1 }),
        400,
        "Invalid channel ID",
      );
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "castle", visibility_policy: 0 }));
      expect(await rows(server, u.hamlet)).to.deep.equal([]);
    });
  });

  describe("PATCH /users/me/subscriptions/muted_topics (legacy)", function () {
    const patch = (user: TestUser, params: Params) =>
      user.client.patch("/users/me/subscriptions/muted_topics", params);

    it("mutes and unmutes by channel name or ID; repeating either changes nothing", async function () {
      const { u, verona } = await fresh();
      expectSuccess(await patch(u.hamlet, { stream: "Verona", topic: "castle", op: "add" }));
      expect((await rows(server, u.hamlet)).map((r) => [r.topic_name, r.visibility_policy])).to.deep.equal([
        ["castle", 1],
      ]);
      const queue = await register(u.hamlet.client, { event_types: ["user_topic", "muted_topics"] });
      expectSuccess(await patch(u.hamlet, { stream_id: verona, topic: "Castle", op: "add" }));
      expect(await pendingEvents(u.hamlet.client, queue.queue_id as string)).to.deep.equal([]);
      expectSuccess(await patch(u.hamlet, { stream_id: verona, topic: "CASTLE", op: "remove" }));
      expectSuccess(await patch(u.hamlet, { stream: "Verona", topic: "castle", op: "remove" }));
      expect(await rows(server, u.hamlet)).to.deep.equal([]);
      // One change, one event: the user_topic one for a client that asked for it by name.
      const events = await pendingEvents(u.hamlet.client, queue.queue_id as string);
      expect(events.map((e) => [e.type as string, e.visibility_policy as number])).to.deep.equal([
        ["user_topic", 0],
      ]);
      // A followed topic muted the legacy way becomes muted.
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "garden", visibility_policy: 3 }));
      expectSuccess(await patch(u.hamlet, { stream_id: verona, topic: "garden", op: "add" }));
      expect((await rows(server, u.hamlet))[0]).to.include({ visibility_policy: 1 });
    });

    it("refuses what Zulip refuses, changing nothing", async function () {
      const { u, verona } = await fresh();
      const secret = await createChannel(u.hamlet, "Secret", [u.hamlet], { invite_only: true });
      expectError(await patch(u.hamlet, { topic: "x", op: "add" }), 400, "Missing 'stream_id' argument");
      expectError(
        await patch(u.hamlet, { stream: "Verona", stream_id: verona, topic: "x", op: "add" }),
        400,
        "Unsupported parameter combination: stream_id, stream",
        "INCOMPATIBLE_PARAMETERS",
      );
      expectError(await patch(u.hamlet, { stream_id: verona, topic: "x", op: "mute" }), 400, "Invalid op");
      expectError(
        await patch(u.hamlet, { stream_id: verona, op: "add" }),
        400,
        "Missing 'topic' argument",
        "REQUEST_VARIABLE_MISSING",
      );
      expectError(
        await patch(u.hamlet, { stream: "Nowhere", topic: "x", op: "add" }),
        400,
        "Invalid channel name 'Nowhere'",
      );
      expectError(
        await patch(u.othello, { stream: "Secret", topic: "x", op: "add" }),
        400,
        "Invalid channel name 'Secret'",
      );
      expectError(
        await patch(u.othello, { stream_id: secret, topic: "x", op: "add" }),
        400,
        "Invalid channel ID",
      );
      expectError(
        await patch(u.hamlet, { stream: "Nowhere", topic: "x", op: "remove" }),
        400,
        "Topic is not muted",
      );
      expectError(
        await patch(u.hamlet, { stream_id: 999999, topic: "x", op: "remove" }),
        400,
        "Topic is not muted",
      );
      expect(await rows(server, u.hamlet)).to.deep.equal([]);
      expect(await rows(server, u.othello)).to.deep.equal([]);
    });
  });

  describe("register and events", function () {
    it("sends user_topic and the legacy muted_topics list; state plus events equals a fresh register", async function () {
      const { u, verona } = await fresh();
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "castle", visibility_policy: 1 }));
        expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "garden", visibility_policy: 3 }));
        expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "Castle", visibility_policy: 2 }));
        expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "garden", visibility_policy: 0 }));
      });
      expect(events.map((e) => e.type as string)).to.deep.equal([
        "muted_topics",
        "user_topic",
        "muted_topics",
        "user_topic",
        "muted_topics",
        "user_topic",
        "muted_topics",
        "user_topic",
      ]);
      expect(events[0]!.muted_topics).to.deep.equal([["Verona", "castle", events[1]!.last_updated]]);
      expect(events[1]).to.deep.include({ stream_id: verona, topic_name: "castle", visibility_policy: 1 });
      expect(events[4]!.muted_topics).to.deep.equal([]);
      expect(events[7]).to.deep.include({ topic_name: "garden", visibility_policy: 0 });
    });

    it("leaves muted_topics out for clients that ask for user_topic by name", async function () {
      const { u, verona } = await fresh();
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "castle", visibility_policy: 1 }));
      const both = await register(u.hamlet.client, { fetch_event_types: ["user_topic", "muted_topics"] });
      expect(both).to.have.property("user_topics");
      expect(both).to.not.have.property("muted_topics");
      const legacy = await register(u.hamlet.client, { event_types: ["muted_topics"] });
      expect((legacy.muted_topics as unknown[][])[0]!.slice(0, 2)).to.deep.equal(["Verona", "castle"]);
      expect(legacy).to.not.have.property("user_topics");
      const all = await register(u.hamlet.client);
      expect(all).to.have.property("muted_topics");
      expect(all).to.have.property("user_topics");
      await verifyRegisterParity(
        u.hamlet.client,
        { event_types: ["user_topic", "muted_topics"] },
        async () => {
          expectSuccess(
            await setTopic(u.hamlet, { stream_id: verona, topic: "garden", visibility_policy: 1 }),
          );
        },
      );
      await verifyRegisterParity(u.hamlet.client, { event_types: ["muted_topics"] }, async () => {
        expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "moat", visibility_policy: 1 }));
      });
    });
  });

  describe("muting and unread messages", function () {
    it("counts unread messages of muted topics out, and of unmuted or followed topics in muted channels in", async function () {
      const { u, verona } = await fresh();
      const messages = {
        castle: await sendToChannel(u.hamlet, "Verona", "castle", "one"),
        garden: await sendToChannel(u.hamlet, "Verona", "garden", "two"),
        moat: await sendToChannel(u.hamlet, "Verona", "moat", "three"),
      };
      expectSuccess(await u.othello.client.post("/mark_all_as_read"));
      const unreadCount = async () =>
        ((await register(u.othello.client)).unread_msgs as { count: number }).count;
      // Messages sent after marking all read.
      for (const topic of Object.keys(messages)) await sendToChannel(u.hamlet, "Verona", topic, "again");
      expect(await unreadCount()).to.equal(3);
      const events = await verifyRegisterParity(u.othello.client, {}, async () => {
        expectSuccess(
          await setTopic(u.othello, { stream_id: verona, topic: "castle", visibility_policy: 1 }),
        );
        expectSuccess(
          await u.othello.client.post("/users/me/subscriptions/properties", {
            subscription_data: [{ stream_id: verona, property: "is_muted", value: true }],
          }),
        );
        expectSuccess(
          await setTopic(u.othello, { stream_id: verona, topic: "garden", visibility_policy: 2 }),
        );
        expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "moat", visibility_policy: 3 }));
      });
      expect(events.filter((e) => e.type === "user_topic")).to.have.lengthOf(3);
      // Castle muted (and in a muted channel): out; garden unmuted, moat followed: in.
      expect(await unreadCount()).to.equal(2);
    });

    it("serves is:muted and in:home with topic policies over channel muting", async function () {
      const { u, verona } = await fresh();
      const castle = await sendToChannel(u.hamlet, "Verona", "castle", "one");
      const garden = await sendToChannel(u.hamlet, "Verona", "garden", "two");
      const moat = await sendToChannel(u.hamlet, "Verona", "moat", "three");
      const narrowed = async (narrow: unknown[]) => {
        const body = expectSuccess(
          await u.othello.client.get("/messages", {
            anchor: "newest",
            num_before: 100,
            num_after: 0,
            narrow,
          }),
        );
        return (body.messages as Array<{ id: number }>).map((m) => m.id).filter((id) => id >= castle);
      };
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "castle", visibility_policy: 1 }));
      expect(await narrowed([{ operator: "is", operand: "muted" }])).to.deep.equal([castle]);
      expect(await narrowed([{ operator: "is", operand: "muted", negated: true }])).to.deep.equal([
        garden,
        moat,
      ]);
      expectSuccess(
        await u.othello.client.post("/users/me/subscriptions/properties", {
          subscription_data: [{ stream_id: verona, property: "is_muted", value: true }],
        }),
      );
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "garden", visibility_policy: 2 }));
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "moat", visibility_policy: 3 }));
      expect(await narrowed([{ operator: "is", operand: "muted" }])).to.deep.equal([castle]);
      expect(await narrowed([{ operator: "in", operand: "home" }])).to.deep.equal([garden, moat]);
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "moat", visibility_policy: 0 }));
      expect(await narrowed([{ operator: "is", operand: "muted" }])).to.deep.equal([castle, moat]);
    });
  });

  describe("topic moves", function () {
    const edit = async (user: TestUser, id: number, params: Params) => {
      expectSuccess(await user.client.patch(`/messages/${id}`, params));
    };
    const policies = async (user: TestUser) =>
      (await userTopics(user)).map((t) => [t.stream_id, t.topic_name, t.visibility_policy]);

    it("carry the policies of a renamed topic along, for everyone", async function () {
      const { u, verona } = await fresh();
      const first = await sendToChannel(u.hamlet, "Verona", "castle", "one");
      await sendToChannel(u.hamlet, "Verona", "castle", "two");
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "castle", visibility_policy: 1 }));
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "Castle", visibility_policy: 3 }));
      const events = await verifyRegisterParity(u.othello.client, {}, async () => {
        await edit(u.hamlet, first, { topic: "keep", propagate_mode: "change_all" });
      });
      expect(events.map((e) => e.type as string)).to.deep.equal([
        "user_topic",
        "muted_topics",
        "user_topic",
        "update_message",
      ]);
      expect(events[0]).to.deep.include({ topic_name: "castle", visibility_policy: 0 });
      expect(events[2]).to.deep.include({ topic_name: "keep", visibility_policy: 1 });
      expect(await policies(u.othello)).to.deep.equal([[verona, "keep", 1]]);
      expect(await policies(u.hamlet)).to.deep.equal([[verona, "keep", 3]]);
      // Resolving is a rename too.
      const [message] = (await server.app
        .knex("messages")
        .where({ stream_id: verona, topic: "keep" })
        .orderBy("id")) as Array<{ id: number }>;
      await edit(u.hamlet, message!.id, { topic: "✔ keep", propagate_mode: "change_all" });
      expect(await policies(u.othello)).to.deep.equal([[verona, "✔ keep", 1]]);
    });

    it("leave them when only part of the topic moves", async function () {
      const { u, verona } = await fresh();
      const first = await sendToChannel(u.hamlet, "Verona", "castle", "one");
      const second = await sendToChannel(u.hamlet, "Verona", "castle", "two");
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "castle", visibility_policy: 1 }));
      const state = { fetch_event_types: ["user_topic", "muted_topics"] };
      const partial = await verifyRegisterParity(u.othello.client, state, async () => {
        await edit(u.hamlet, second, { topic: "split", propagate_mode: "change_later" });
      });
      expect(partial.map((e) => e.type as string)).to.deep.equal(["update_message"]);
      expect(await policies(u.othello)).to.deep.equal([[verona, "castle", 1]]);
      // Moving what is left moves the rest of the topic: its policies go along.
      await verifyRegisterParity(u.othello.client, state, async () => {
        await edit(u.hamlet, first, { topic: "rest", propagate_mode: "change_one" });
      });
      expect(await policies(u.othello)).to.deep.equal([[verona, "rest", 1]]);
    });

    it("follow the topic to another channel its users can read, renamed or not", async function () {
      const { u, verona } = await fresh();
      const rome = await createChannel(u.hamlet, "Rome", [u.hamlet, u.othello]);
      const moved = await sendToChannel(u.hamlet, "Verona", "castle", "one");
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "castle", visibility_policy: 1 }));
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "castle", visibility_policy: 3 }));
      const state = { fetch_event_types: ["user_topic", "muted_topics", "subscription"] };
      const events = await verifyRegisterParity(u.othello.client, state, async () => {
        await edit(u.hamlet, moved, { stream_id: rome, topic: "keep", propagate_mode: "change_all" });
      });
      expect(events.filter((e) => e.type === "user_topic")).to.have.lengthOf(2);
      expect(await policies(u.othello)).to.deep.equal([[rome, "keep", 1]]);
      expect(await policies(u.hamlet)).to.deep.equal([[rome, "keep", 3]]);
      // Back again under the same name.
      await verifyRegisterParity(u.hamlet.client, state, async () => {
        await edit(u.hamlet, moved, { stream_id: verona, propagate_mode: "change_all" });
      });
      expect(await policies(u.othello)).to.deep.equal([[verona, "keep", 1]]);
      expect(await policies(u.hamlet)).to.deep.equal([[verona, "keep", 3]]);
    });

    it("stay where they are when the move is refused", async function () {
      const { realm, u, verona } = await fresh();
      await createChannel(u.hamlet, "Rome", [u.hamlet, u.othello, u.polonius]);
      await subscribe(u.hamlet, ["Verona"], [u.polonius]);
      const moved = await sendToChannel(u.hamlet, "Verona", "castle", "one");
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "castle", visibility_policy: 1 }));
      const rome = (await register(u.othello.client, { fetch_event_types: ["subscription"] }))
        .subscriptions as Array<{
        stream_id: number;
        name: string;
      }>;
      const romeId = rome.find((c) => c.name === "Rome")!.stream_id;
      await setRealmFields(server, realm, {
        can_move_messages_between_topics_group_id: await systemGroupId(server, realm, "role:administrators"),
      });
      const queue = await register(u.othello.client, { event_types: ["user_topic", "muted_topics"] });
      // A member may no longer rename topics; a guest may not move messages between channels.
      expectError(
        await u.othello.client.patch(`/messages/${moved}`, { topic: "keep", propagate_mode: "change_all" }),
        400,
        "You don't have permission to edit this message",
      );
      expectError(
        await u.polonius.client.patch(`/messages/${moved}`, {
          stream_id: romeId,
          propagate_mode: "change_all",
        }),
        400,
        "You don't have permission to move this message",
      );
      // A member past the time limit for moving within the channel.
      await setRealmFields(server, realm, {
        can_move_messages_between_topics_group_id: await systemGroupId(server, realm, "role:everyone"),
      });
      server.clock.advance(8 * 24 * 3600 * 1000);
      expectError(
        await u.othello.client.patch(`/messages/${moved}`, { topic: "keep", propagate_mode: "change_all" }),
        400,
        "The time limit for editing this message's topic has passed.",
      );
      expect(await policies(u.othello)).to.deep.equal([[verona, "castle", 1]]);
      expect(await pendingEvents(u.othello.client, queue.queue_id as string)).to.deep.equal([]);
    });

    it("merge into a topic that has messages, the more visible policy winning", async function () {
      const { u, verona } = await fresh();
      const moved = await sendToChannel(u.hamlet, "Verona", "from", "one");
      await sendToChannel(u.hamlet, "Verona", "to", "two");
      const cordelia = u.cordelia;
      expectSuccess(
        await u.cordelia.client.post("/users/me/subscriptions", { subscriptions: [{ name: "Verona" }] }),
      );
      // Othello: muted -> followed stays followed; Cordelia: muted -> (none) becomes none;
      // Hamlet: (none) -> muted becomes none too.
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "from", visibility_policy: 1 }));
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "to", visibility_policy: 3 }));
      expectSuccess(await setTopic(cordelia, { stream_id: verona, topic: "from", visibility_policy: 1 }));
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "to", visibility_policy: 1 }));
      await verifyRegisterParity(u.othello.client, {}, async () => {
        await edit(u.hamlet, moved, { topic: "to", propagate_mode: "change_all" });
      });
      expect(await policies(u.othello)).to.deep.equal([[verona, "to", 3]]);
      expect(await policies(cordelia)).to.deep.equal([]);
      expect(await policies(u.hamlet)).to.deep.equal([]);
    });

    it("replace stale policies of a topic without messages", async function () {
      const { u, verona } = await fresh();
      const moved = await sendToChannel(u.hamlet, "Verona", "from", "one");
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "from", visibility_policy: 1 }));
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "empty", visibility_policy: 3 }));
      expectSuccess(await setTopic(u.hamlet, { stream_id: verona, topic: "empty", visibility_policy: 1 }));
      await verifyRegisterParity(u.othello.client, {}, async () => {
        await edit(u.hamlet, moved, { topic: "empty", propagate_mode: "change_all" });
      });
      expect(await policies(u.othello)).to.deep.equal([[verona, "empty", 1]]);
      expect(await policies(u.hamlet)).to.deep.equal([]);
    });

    it("stay when the topic's messages are deleted, as in Zulip", async function () {
      const { u, verona } = await fresh();
      await sendToChannel(u.hamlet, "Verona", "castle", "one");
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "castle", visibility_policy: 1 }));
      const state = { fetch_event_types: ["user_topic", "muted_topics", "update_message_flags"] };
      await verifyRegisterParity(u.othello.client, state, async () => {
        const body = expectSuccess(
          await u.iago.client.post(`/streams/${verona}/delete_topic`, { topic_name: "castle" }),
        );
        expect(body.complete).to.equal(true);
      });
      expect(await policies(u.othello)).to.deep.equal([[verona, "castle", 1]]);
    });

    it("drop the policies of users who cannot read the channel the topic moves to", async function () {
      const { u, verona } = await fresh();
      const secret = await createChannel(u.hamlet, "Secret", [u.hamlet, u.cordelia], { invite_only: true });
      const moved = await sendToChannel(u.hamlet, "Verona", "castle", "one");
      expectSuccess(
        await u.cordelia.client.post("/users/me/subscriptions", { subscriptions: [{ name: "Verona" }] }),
      );
      expectSuccess(await setTopic(u.othello, { stream_id: verona, topic: "castle", visibility_policy: 1 }));
      expectSuccess(await setTopic(u.cordelia, { stream_id: verona, topic: "castle", visibility_policy: 3 }));
      // (max_message_id is not recomputed from delete_message by clients.)
      const state = { fetch_event_types: ["user_topic", "muted_topics", "update_message_flags"] };
      const events = await verifyRegisterParity(u.othello.client, state, async () => {
        await edit(u.hamlet, moved, { stream_id: secret, propagate_mode: "change_all" });
      });
      expect(events.map((e) => e.type as string)).to.deep.equal([
        "delete_message",
        "muted_topics",
        "user_topic",
      ]);
      expect(await policies(u.othello)).to.deep.equal([]);
      expect(await policies(u.cordelia)).to.deep.equal([[secret, "castle", 3]]);
    });
  });
});
