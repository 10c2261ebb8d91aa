import { expect } from "chai";
import type { Event } from "../helpers/apply-events.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** A queue's `narrow` and `all_public_streams`: what message events it gets afterwards. */
describe("register: narrow and all_public_streams", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
    await createChannel(u.hamlet, "Norway", [u.hamlet, u.othello]);
    await createChannel(u.hamlet, "Secret", [u.hamlet, u.cordelia], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  /** Registers; returns a reader of the message events (with their IDs) since. */
  async function listen(user: TestUser, params: Params) {
    const state = await register(user.client, params);
    const queueId = state.queue_id as string;
    return async () =>
      (await pendingEvents(user.client, queueId)).filter((e) => e.type === "message").map(summary);
  }
  const summary = (e: Event) => ({ id: e.message.id as number, flags: e.flags as string[] });
  const ids = (events: Array<{ id: number }>) => events.map((e) => e.id);

  describe("narrow", function () {
    it("channel: only that channel's messages (any case), not direct messages", async function () {
      const read = await listen(u.othello, { narrow: [["channel", "denmark"]] });
      const a = await sendToChannel(u.hamlet, "Denmark", "castle", "one");
      await sendToChannel(u.hamlet, "Norway", "castle", "two");
      await sendDirect(u.hamlet, [u.othello], "three");
      expect(ids(await read())).to.deep.equal([a]);
    });

    it("stream (its old name), topic and sender together", async function () {
      const read = await listen(u.othello, {
        narrow: [
          ["stream", "Denmark"],
          ["topic", "CASTLE"],
          ["sender", u.hamlet.email],
        ],
      });
      const a = await sendToChannel(u.hamlet, "Denmark", "castle", "yes");
      await sendToChannel(u.hamlet, "Denmark", "moat", "other topic");
      await sendToChannel(u.othello, "Denmark", "castle", "other sender");
      expect(ids(await read())).to.deep.equal([a]);
    });

    it("is:dm (and its old name is:private): direct messages only", async function () {
      for (const operand of ["dm", "private"]) {
        const read = await listen(u.othello, { narrow: [["is", operand]] });
        await sendToChannel(u.hamlet, "Denmark", "castle", "public");
        const dm = await sendDirect(u.hamlet, [u.othello], "private");
        const group = await sendDirect(u.hamlet, [u.othello, u.cordelia], "group");
        expect(ids(await read()), operand).to.deep.equal([dm, group]);
      }
    });

    it("is:mentioned, is:unread and is:resolved read the recipient's flags and the topic", async function () {
      const mentioned = await listen(u.othello, { narrow: [["is", "mentioned"]] });
      const unread = await listen(u.hamlet, { narrow: [["is", "unread"]] });
      const resolved = await listen(u.othello, { narrow: [["is", "resolved"]] });
      const a = await sendToChannel(u.hamlet, "Denmark", "castle", `hi @**${u.othello.fullName}**`);
      const plain = await sendToChannel(u.hamlet, "Denmark", "castle", "no mention");
      const b = await sendToChannel(u.othello, "Denmark", "✔ done", "resolved");
      expect(await mentioned()).to.deep.equal([{ id: a, flags: ["mentioned"] }]);
      // Sent through the API, even the sender's own messages arrive unread.
      expect(ids(await unread())).to.deep.equal([a, plain, b]);
      expect(ids(await resolved())).to.deep.equal([b]);
    });

    it("lets every other event through", async function () {
      const state = await register(u.othello.client, {
        narrow: [["is", "dm"]],
        event_types: ["message", "reaction"],
      });
      const id = await sendToChannel(u.hamlet, "Denmark", "castle", "react to me");
      expectSuccess(await u.hamlet.client.post(`/messages/${id}/reactions`, { emoji_name: "smile" }));
      const events = await pendingEvents(u.othello.client, state.queue_id as string);
      expect(events.map((e) => e.type as string)).to.deep.equal(["reaction"]);
    });

    it("refuses operators and operands an event queue cannot filter on; no queue is made", async function () {
      const before = server.app.events.size;
      const cases: Array<[Params[string], string]> = [
        [[["search", "castle"]], "Operator search not supported."],
        [[["channels", "public"]], "Operator channels not supported."],
        [[["dm", u.hamlet.email]], "Operator dm not supported."],
        [[["is", "followed"]], "Operand followed not supported."],
        [
          [{ operator: "channel", operand: "Denmark", negated: true }],
          "narrow[0]: negated terms are not supported for event queues",
        ],
      ];
      for (const [narrow, msg] of cases) {
        expectError(await u.othello.client.post("/register", { narrow }), 400, msg);
      }
      expect(server.app.events.size).to.equal(before);
    });

    it("accepts the object form of a term", async function () {
      const read = await listen(u.othello, { narrow: [{ operator: "channel", operand: "Norway" }] });
      await sendToChannel(u.hamlet, "Denmark", "castle", "no");
      const a = await sendToChannel(u.hamlet, "Norway", "castle", "yes");
      expect(ids(await read())).to.deep.equal([a]);
    });
  });

  describe("all_public_streams", function () {
    it("gets messages to every public channel, with no flags where not a recipient", async function () {
      // Prospero is subscribed to nothing.
      const read = await listen(u.prospero, { all_public_streams: true, event_types: ["message"] });
      const a = await sendToChannel(u.hamlet, "Denmark", "castle", "public");
      await sendToChannel(u.hamlet, "Secret", "plans", "private channel");
      await sendDirect(u.hamlet, [u.othello], "direct");
      const b = await sendToChannel(u.hamlet, "Norway", "castle", "public too");
      expect(await read()).to.deep.equal([
        { id: a, flags: [] },
        { id: b, flags: [] },
      ]);
    });

    it("keeps a recipient's own flags, once, and its other messages", async function () {
      const read = await listen(u.othello, { all_public_streams: true });
      const a = await sendToChannel(u.hamlet, "Denmark", "castle", `@**${u.othello.fullName}**`);
      const b = await sendDirect(u.hamlet, [u.othello], "direct");
      expect(await read()).to.deep.equal([
        { id: a, flags: ["mentioned"] },
        { id: b, flags: [] },
      ]);
    });

    it("combines with a narrow", async function () {
      const read = await listen(u.prospero, { all_public_streams: true, narrow: [["channel", "Norway"]] });
      await sendToChannel(u.hamlet, "Denmark", "castle", "no");
      const a = await sendToChannel(u.hamlet, "Norway", "castle", "yes");
      expect(ids(await read())).to.deep.equal([a]);
    });

    it("is refused to guests (no queue is made); without it, nothing changes for them", async function () {
      const before = server.app.events.size;
      expectError(
        await u.polonius.client.post("/register", { all_public_streams: true }),
        400,
        "User not authorized for this query",
      );
      expect(server.app.events.size).to.equal(before);
      const read = await listen(u.polonius, { all_public_streams: false });
      await sendToChannel(u.hamlet, "Denmark", "castle", "not for the guest");
      expect(await read()).to.deep.equal([]);
    });

    it("stops when the queue is deleted", async function () {
      const state = await register(u.prospero.client, { all_public_streams: true });
      expectSuccess(await u.prospero.client.delete("/events", { queue_id: state.queue_id as string }));
      await sendToChannel(u.hamlet, "Denmark", "castle", "after");
      expectError(
        await u.prospero.client.get("/events", {
          queue_id: state.queue_id as string,
          last_event_id: -1,
          dont_block: true,
        }),
        400,
        `Bad event queue ID: ${state.queue_id as string}`,
        "BAD_EVENT_QUEUE_ID",
      );
    });
  });
});
