import { expect } from "chai";
import { prepareMessage } from "../../src/actions/message-send.js";
import { doSendMessages } from "../../src/actions/message-write.js";
import type { PreparedMessage } from "../../src/lib/prepared-message.js";
import { RECENT_CONVERSATIONS_LIMIT } from "../../src/queries/message-state.js";
import type { Event } from "../helpers/apply-events.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import type { Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { messageRow, sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const MESSAGE_TYPES: Params = {
  fetch_event_types: ["message", "recent_private_conversations", "subscription"],
};

const byId = (a: number, b: number) => a - b;

describe("message events and the register state of sent messages", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.polonius]);
    await createChannel(u.othello, "Secret", [u.othello, u.cordelia], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  /** Registers for message events; returns a function that reads what arrived since. */
  async function listen(user: TestUser, params: Params = {}) {
    const state = await register(user.client, { event_types: ["message"], ...params });
    const queueId = state.queue_id as string;
    return {
      queueId,
      events: async () => (await pendingEvents(user.client, queueId)).filter((e) => e.type === "message"),
    };
  }

  describe("who gets the message event", function () {
    it("every subscriber, with their own flags, and nobody else", async function () {
      const queues = new Map<number, Awaited<ReturnType<typeof listen>>>();
      for (const user of Object.values(u)) queues.set(user.id, await listen(user));
      const id = await sendToChannel(u.hamlet, "Denmark", "castle", "Hi @**Othello Dane**");
      const received = new Map<number, Event>();
      for (const [userId, queue] of queues) {
        const events = await queue.events();
        if (events.length > 0) received.set(userId, events[0]!);
        expect(events.length).to.be.at.most(1);
      }
      expect([...received.keys()].sort(byId)).to.deep.equal(
        [u.hamlet.id, u.othello.id, u.polonius.id].sort(byId),
      );
      expect(received.get(u.othello.id)!.flags).to.deep.equal(["mentioned"]);
      expect(received.get(u.hamlet.id)!.flags).to.deep.equal([]);
      expect(received.get(u.othello.id)!.message.id).to.equal(id);
      expect(received.get(u.hamlet.id)).not.to.have.property("local_message_id");
    });

    it("private channels' messages reach subscribers only, administrators included", async function () {
      const iago = await listen(u.iago);
      const hamlet = await listen(u.hamlet);
      const cordelia = await listen(u.cordelia);
      await sendToChannel(u.othello, "Secret", "plans", "between us");
      expect(await iago.events()).to.deep.equal([]);
      expect(await hamlet.events()).to.deep.equal([]);
      expect(await cordelia.events()).to.have.lengthOf(1);
    });

    it("direct messages reach their participants only", async function () {
      const queues = await Promise.all([u.hamlet, u.othello, u.cordelia, u.iago].map((user) => listen(user)));
      await sendDirect(u.hamlet, [u.othello], "psst");
      const counts = await Promise.all(queues.map(async (q) => (await q.events()).length));
      expect(counts).to.deep.equal([1, 1, 0, 0]);
      await sendDirect(u.hamlet, [u.othello, u.cordelia], "all of us");
      const after = await Promise.all(queues.map(async (q) => (await q.events()).length));
      expect(after).to.deep.equal([2, 2, 1, 0]);
    });
  });

  describe("the message in the event", function () {
    it("has Zulip's shape, with HTML or Markdown as the client asked", async function () {
      const html = await listen(u.othello, { apply_markdown: true });
      const markdown = await listen(u.othello, { apply_markdown: false, client_gravatar: false });
      const id = await sendToChannel(u.hamlet, "Denmark", "shape", "**bold**", { client: "website" });
      const [event] = await html.events();
      expect(event).to.include({ type: "message" });
      expect(event!.flags).to.deep.equal([]);
      const message = event!.message as Event;
      expect(Object.keys(message).sort()).to.deep.equal(
        [
          "id",
          "type",
          "sender_id",
          "sender_email",
          "sender_full_name",
          "sender_realm_str",
          "avatar_url",
          "client",
          "content",
          "content_type",
          "recipient_id",
          "display_recipient",
          "stream_id",
          "subject",
          "topic_links",
          "timestamp",
          "is_me_message",
          "reactions",
          "submessages",
        ].sort(),
      );
      const row = await messageRow(server, id);
      expect(message).to.deep.include({
        id,
        type: "stream",
        sender_id: u.hamlet.id,
        sender_email: u.hamlet.email,
        sender_full_name: u.hamlet.fullName,
        client: "website",
        content: "<p><strong>bold</strong></p>",
        content_type: "text/html",
        recipient_id: row.recipient_id,
        display_recipient: "Denmark",
        subject: "shape",
        topic_links: [],
        is_me_message: false,
        reactions: [],
        submessages: [],
      });
      expect(message.avatar_url).to.equal(null);
      const [plain] = await markdown.events();
      expect(plain!.message).to.include({ content: "**bold**", content_type: "text/x-markdown" });
      expect(plain!.message.avatar_url).to.be.a("string");
    });

    it("links URLs in topics, and names the empty topic for clients that cannot show it", async function () {
      const modern = await listen(u.othello, { client_capabilities: { empty_topic_name: true } });
      const legacy = await listen(u.othello);
      await sendToChannel(u.hamlet, "Denmark", "see https://example.com/x", "c");
      const [linked] = await modern.events();
      expect(linked!.message.topic_links).to.deep.equal([
        { text: "https://example.com/x", url: "https://example.com/x" },
      ]);
      await legacy.events();
      await sendToChannel(u.hamlet, "Denmark", "", "in the empty topic");
      expect((await modern.events()).at(-1)!.message.subject).to.equal("");
      expect((await legacy.events()).at(-1)!.message.subject).to.equal("general chat");
    });

    it("orders 1:1 participants by email and group participants by ID; recipient_id is the conversation's", async function () {
      const listener = await listen(u.othello);
      const id = await sendDirect(u.othello, [u.cordelia], "one to one");
      const [event] = await listener.events();
      const participants = (event!.message.display_recipient as Event[]).map((p) => p.email as string);
      expect(participants).to.deep.equal(["cordelia@zulip.test", "othello@zulip.test"]);
      expect(event!.message.display_recipient[0]).to.deep.equal({
        id: u.cordelia.id,
        email: u.cordelia.email,
        full_name: u.cordelia.fullName,
        is_mirror_dummy: false,
      });
      expect(event!.message).to.include({
        type: "private",
        subject: "",
        recipient_id: (await messageRow(server, id)).recipient_id,
      });
      expect(event!.message).not.to.have.property("stream_id");

      await sendDirect(u.othello, [u.othello], "self");
      const [self] = await listener.events().then((events) => events.slice(1));
      expect((self!.message.display_recipient as Event[]).map((p) => p.id as number)).to.deep.equal([
        u.othello.id,
      ]);

      await sendDirect(u.othello, [u.polonius, u.cordelia, u.hamlet], "group");
      const group = (await listener.events()).at(-1)!;
      expect((group.message.display_recipient as Event[]).map((p) => p.id as number)).to.deep.equal(
        [u.othello.id, u.polonius.id, u.cordelia.id, u.hamlet.id].sort(byId),
      );
    });

    it("echoes local_id as local_message_id to the sending queue only", async function () {
      const sending = await listen(u.hamlet);
      const otherTab = await listen(u.hamlet);
      const receiver = await listen(u.othello);
      await sendToChannel(u.hamlet, "Denmark", "echo", "c", { local_id: "12.01", queue_id: sending.queueId });
      expect((await sending.events())[0]).to.include({ local_message_id: "12.01" });
      expect((await otherTab.events())[0]).not.to.have.property("local_message_id");
      expect((await receiver.events())[0]).not.to.have.property("local_message_id");
      // local_id alone, or another user's queue, echoes nothing.
      await sendToChannel(u.hamlet, "Denmark", "echo", "c", { local_id: "13.01" });
      expect((await sending.events()).at(-1)).not.to.have.property("local_message_id");
      await sendDirect(u.hamlet, [u.othello], "dm", { local_id: "14.01", queue_id: sending.queueId });
      expect((await sending.events()).at(-1)).to.include({ local_message_id: "14.01" });
      expect((await receiver.events()).at(-1)).not.to.have.property("local_message_id");
    });
  });

  describe("register state plus events equals a fresh register", function () {
    it("for channel messages, the channel's first message included", async function () {
      for (const viewer of [u.hamlet, u.othello, u.iago]) {
        const name = `Fresh for ${viewer.email}`;
        // Creating the channel posts its first message (the creation notice).
        const events = await verifyRegisterParity(viewer.client, {}, async () => {
          await createChannel(u.hamlet, name, [u.hamlet, u.othello]);
          await sendToChannel(u.hamlet, name, "first", "c");
          await sendToChannel(u.othello, name, "second", "@**all**");
        });
        const firstIds = events.filter((e) => e.property === "first_message_id");
        expect(firstIds).to.have.lengthOf(1);
        const messages = events.filter((e) => e.type === "message");
        expect(messages).to.have.lengthOf(viewer === u.iago ? 0 : 3);
      }
    });

    it("for direct messages: 1:1 both ways, to oneself and in groups", async function () {
      const own = await server.factory.realm();
      const c = cast(own);
      for (const viewer of [c.hamlet, c.othello, c.cordelia]) {
        await verifyRegisterParity(viewer.client, MESSAGE_TYPES, async () => {
          await sendDirect(c.hamlet, [c.othello], "one");
          await sendDirect(c.othello, [c.hamlet], "two");
          await sendDirect(c.hamlet, [c.hamlet], "three");
          await sendDirect(c.cordelia, [c.hamlet, c.othello], "four");
          await sendDirect(c.hamlet, [c.othello], "five");
        });
      }
    });
  });

  describe("recent_private_conversations", function () {
    it("lists conversations newest first, with the other participants", async function () {
      const own = await server.factory.realm();
      const c = cast(own);
      const first = await sendDirect(c.hamlet, [c.othello], "one");
      const self = await sendDirect(c.hamlet, [c.hamlet], "self");
      const group = await sendDirect(c.cordelia, [c.hamlet, c.othello], "group");
      const reply = await sendDirect(c.othello, [c.hamlet], "reply");
      await createChannel(c.hamlet, "Court", [c.hamlet, c.othello]);
      const channelMessage = await sendToChannel(c.hamlet, "Court", "not a DM", "c");
      const state = await register(c.hamlet.client, {
        fetch_event_types: ["recent_private_conversations", "message"],
      });
      expect(state.recent_private_conversations).to.deep.equal([
        { max_message_id: reply, user_ids: [c.othello.id] },
        { max_message_id: group, user_ids: [c.othello.id, c.cordelia.id].sort(byId) },
        { max_message_id: self, user_ids: [] },
      ]);
      expect(state.max_message_id).to.equal(channelMessage);
      expect(first).to.be.below(reply);
      const cordelia = await register(c.cordelia.client, {
        fetch_event_types: ["recent_private_conversations"],
      });
      expect(cordelia.recent_private_conversations).to.deep.equal([
        { max_message_id: group, user_ids: [c.hamlet.id, c.othello.id].sort(byId) },
      ]);
      const none = await register(c.iago.client, {
        fetch_event_types: ["recent_private_conversations", "message"],
      });
      expect(none.recent_private_conversations).to.deep.equal([]);
      expect(none.max_message_id).to.equal(-1);
    });

    it(`looks at the newest ${RECENT_CONVERSATIONS_LIMIT} direct messages only`, async function () {
      this.timeout(60_000);
      const own = await server.factory.realm();
      const c = cast(own);
      await sendDirect(c.hamlet, [c.cordelia], "long ago");
      const hamlet = await server.factory.row(own.id, c.hamlet.id);
      // Many sends in one transaction (the write part takes a batch).
      const prepared: PreparedMessage[] = [];
      for (let i = 0; i < RECENT_CONVERSATIONS_LIMIT; i++) {
        prepared.push(
          await prepareMessage(server.app, hamlet, {
            type: "private",
            to: JSON.stringify([c.othello.id]),
            content: `message ${i}`,
            client: "test",
          }),
        );
      }
      const ids = await server.app.db.transaction((tx) => doSendMessages(server.app, tx, prepared));
      expect(ids).to.have.lengthOf(RECENT_CONVERSATIONS_LIMIT);
      expect([...ids].sort(byId)).to.deep.equal(ids);
      const state = await register(c.hamlet.client, { fetch_event_types: ["recent_private_conversations"] });
      expect(state.recent_private_conversations).to.deep.equal([
        { max_message_id: ids.at(-1), user_ids: [c.othello.id] },
      ]);
      const cordelia = await register(c.cordelia.client, {
        fetch_event_types: ["recent_private_conversations"],
      });
      expect(cordelia.recent_private_conversations).to.have.lengthOf(1);
    });
  });
});
