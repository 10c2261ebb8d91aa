import { expect } from "chai";
import { cast, createChannel, subscribe, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register } from "../helpers/events.js";
import type { TestUser } from "../helpers/factories.js";
import { sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("topics and typing", function () {
  let server: TestServer;
  let u: Cast;
  let denmark: number;
  let secret: number;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    denmark = await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.cordelia]);
    secret = await createChannel(u.othello, "Secret", [u.othello, u.hamlet], {
      invite_only: true,
      history_public_to_subscribers: false,
    });
  });
  after(async function () {
    await server.close();
  });

  describe("GET /users/me/{stream_id}/topics", function () {
    it("lists topics newest first, named as in their latest message, merging case", async function () {
      const a = await sendToChannel(u.hamlet, "Denmark", "castle", "1");
      const b = await sendToChannel(u.hamlet, "Denmark", "", "empty");
      const c = await sendToChannel(u.othello, "Denmark", "Castle", "2");
      const res = expectSuccess(await u.cordelia.client.get(`/users/me/${denmark}/topics`));
      const topics = (res.topics as Array<{ name: string; max_id: number }>).filter(
        (t) => t.name !== "channel events",
      );
      expect(topics).to.deep.equal([
        { max_id: c, name: "Castle" },
        { max_id: b, name: "general chat" },
      ]);
      expect(a).to.be.below(c);
      const raw = expectSuccess(
        await u.cordelia.client.get(`/users/me/${denmark}/topics`, { allow_empty_topic_name: true }),
      );
      expect((raw.topics as Array<{ name: string }>).map((t) => t.name)).to.include("");
    });

    it("shows a protected-history channel's topics only from messages the user received", async function () {
      await sendToChannel(u.othello, "Secret", "before", "before cordelia joined");
      expectError(await u.cordelia.client.get(`/users/me/${secret}/topics`), 400, "Invalid channel ID");
      await subscribe(u.othello, ["Secret"], [u.cordelia]);
      await sendToChannel(u.othello, "Secret", "after", "cordelia got this");
      const names = (r: Record<string, unknown>) => (r.topics as Array<{ name: string }>).map((t) => t.name);
      expect(names(expectSuccess(await u.cordelia.client.get(`/users/me/${secret}/topics`)))).to.deep.equal([
        "after",
      ]);
      expect(
        names(expectSuccess(await u.othello.client.get(`/users/me/${secret}/topics`))),
      ).to.include.members(["after", "before"]);
    });
  });

  describe("POST /typing", function () {
    // Channel typing needs the stream_typing_notifications capability (client-capabilities.test.ts).
    const listen = async (user: TestUser) =>
      (
        (await register(user.client, {
          event_types: ["typing"],
          client_capabilities: { stream_typing_notifications: true },
        })) as { queue_id: string }
      ).queue_id;

    it("notifies a direct conversation's participants, the sender included", async function () {
      const queues = new Map<TestUser, string>();
      for (const user of [u.hamlet, u.othello, u.cordelia]) queues.set(user, await listen(user));
      expectSuccess(
        await u.hamlet.client.post("/typing", { op: "start", to: JSON.stringify([u.othello.id]) }),
      );
      const expected = {
        type: "typing",
        message_type: "direct",
        op: "start",
        sender: { user_id: u.hamlet.id, email: u.hamlet.email },
        recipients: [
          { user_id: u.othello.id, email: u.othello.email },
          { user_id: u.hamlet.id, email: u.hamlet.email },
        ],
      };
      for (const user of [u.hamlet, u.othello])
        expect(await pendingEvents(user.client, queues.get(user)!)).to.deep.equal([{ ...expected, id: 0 }]);
      expect(await pendingEvents(u.cordelia.client, queues.get(u.cordelia)!)).to.deep.equal([]);
    });

    it("notifies a channel's other subscribers about a topic", async function () {
      const othello = await listen(u.othello);
      const iago = await listen(u.iago);
      const hamlet = await listen(u.hamlet);
      expectSuccess(
        await u.hamlet.client.post("/typing", {
          type: "channel",
          op: "stop",
          stream_id: denmark,
          topic: "castle",
        }),
      );
      expect(await pendingEvents(u.othello.client, othello)).to.deep.equal([
        {
          type: "typing",
          message_type: "stream",
          op: "stop",
          sender: { user_id: u.hamlet.id, email: u.hamlet.email },
          stream_id: denmark,
          topic: "castle",
          id: 0,
        },
      ]);
      expect(await pendingEvents(u.iago.client, iago)).to.deep.equal([]);
      expect(await pendingEvents(u.hamlet.client, hamlet)).to.deep.equal([]);
    });

    describe("the users' typing settings", function () {
      const settings = async (user: TestUser, params: Record<string, boolean>) => {
        expectSuccess(await user.client.patch("/settings", params));
      };
      afterEach(async function () {
        const all = {
          send_private_typing_notifications: true,
          send_stream_typing_notifications: true,
          receives_typing_notifications: true,
        };
        for (const user of [u.hamlet, u.othello, u.cordelia]) await settings(user, all);
      });

      it("refuses to send what the sender turned off, sending nothing", async function () {
        const othello = await listen(u.othello);
        await settings(u.hamlet, { send_private_typing_notifications: false });
        const direct = { op: "start", to: JSON.stringify([u.othello.id]) };
        const channel = { type: "stream", op: "start", stream_id: denmark, topic: "castle" };
        expectError(
          await u.hamlet.client.post("/typing", direct),
          400,
          "User has disabled typing notifications for direct messages",
        );
        expectSuccess(await u.hamlet.client.post("/typing", channel));
        await settings(u.hamlet, {
          send_private_typing_notifications: true,
          send_stream_typing_notifications: false,
        });
        expectError(
          await u.hamlet.client.post("/typing", channel),
          400,
          "User has disabled typing notifications for channel messages",
        );
        expectSuccess(await u.hamlet.client.post("/typing", direct));
        const events = await pendingEvents(u.othello.client, othello);
        expect(events.map((e) => e.message_type as string)).to.deep.equal(["stream", "direct"]);
      });

      it("delivers nothing to those who turned receiving off", async function () {
        const othello = await listen(u.othello);
        const cordelia = await listen(u.cordelia);
        const hamlet = await listen(u.hamlet);
        await settings(u.othello, { receives_typing_notifications: false });
        expectSuccess(
          await u.hamlet.client.post("/typing", { op: "start", to: JSON.stringify([u.othello.id]) }),
        );
        expectSuccess(
          await u.hamlet.client.post("/typing", {
            type: "channel",
            op: "start",
            stream_id: denmark,
            topic: "x",
          }),
        );
        expect(await pendingEvents(u.othello.client, othello)).to.deep.equal([]);
        expect(
          (await pendingEvents(u.cordelia.client, cordelia)).map((e) => e.message_type as string),
        ).to.deep.equal(["stream"]);
        expect(
          (await pendingEvents(u.hamlet.client, hamlet)).map((e) => e.message_type as string),
        ).to.deep.equal(["direct"]);
      });
    });

    it("refuses bad input", async function () {
      const post = (params: Record<string, string | number>) => u.hamlet.client.post("/typing", params);
      expectError(await post({ op: "start" }), 400, "Missing 'to' argument", "REQUEST_VARIABLE_MISSING");
      expectError(await post({ op: "start", to: "[]" }), 400, "Empty 'to' list");
      expectError(await post({ op: "start", to: "[999999]" }), 400, "Invalid user ID 999999");
      expectError(await post({ op: "dance", to: JSON.stringify([u.othello.id]) }), 400, "Invalid op");
      expectError(
        await post({ type: "stream", op: "start", topic: "x" }),
        400,
        "Missing 'stream_id' argument",
        "REQUEST_VARIABLE_MISSING",
      );
      expectError(await post({ type: "stream", op: "start", stream_id: denmark }), 400, "Missing topic");
      expectError(
        await u.prospero.client.post("/typing", {
          type: "stream",
          op: "start",
          stream_id: secret,
          topic: "x",
        }),
        400,
        "Invalid channel ID",
      );
    });
  });
});
