import { expect } from "chai";
import { cast, createChannel, subscribe, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { register, verifyRegisterParity } from "../helpers/events.js";
import type { TestUser } from "../helpers/factories.js";
import { flagsByUser, sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const UNREAD_TYPES = { fetch_event_types: ["message", "update_message_flags", "subscription"] };

describe("message flags and unread state", function () {
  let server: TestServer;
  let u: Cast;
  let denmark: number;
  let secret: number;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    denmark = await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.cordelia]);
    secret = await createChannel(u.othello, "Secret", [u.othello, u.hamlet], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  const flags = async (user: TestUser, id: number) => (await flagsByUser(server, id)).get(user.id);
  const postFlags = (user: TestUser, messages: number[], op: string, flag: string) =>
    user.client.post("/messages/flags", { messages: JSON.stringify(messages), op, flag });

  describe("POST /messages/flags", function () {
    it("adds and removes starred and read, echoing the request's IDs", async function () {
      const id = await sendToChannel(u.hamlet, "Denmark", "flags", "star me");
      expect(await flags(u.othello, id)).to.deep.equal([]);
      const res = expectSuccess(await postFlags(u.othello, [id, id], "add", "starred"));
      expect(res.messages).to.deep.equal([id, id]);
      expect(await flags(u.othello, id)).to.deep.equal(["starred"]);
      expectSuccess(await postFlags(u.othello, [id], "add", "read"));
      expect(await flags(u.othello, id)).to.deep.equal(["read", "starred"]);
      expectSuccess(await postFlags(u.othello, [id], "remove", "starred"));
      expect(await flags(u.othello, id)).to.deep.equal(["read"]);
      // Other users' flags are untouched.
      expect(await flags(u.cordelia, id)).to.deep.equal([]);
    });

    it("refuses unknown and server-only flags and bad operations, changing nothing", async function () {
      const id = await sendToChannel(u.hamlet, "Denmark", "flags", "no change");
      for (const [flag, op, msg] of [
        ["bogus", "add", "Invalid flag: 'bogus'"],
        ["is_private", "add", "Invalid flag: 'is_private'"],
        ["mentioned", "add", "Flag not editable: 'mentioned'"],
        ["historical", "remove", "Flag not editable: 'historical'"],
        ["starred", "toggle", "Invalid message flag operation: 'toggle'"],
      ] as const) {
        expectError(await postFlags(u.othello, [id], op, flag), 400, msg);
      }
      expect(await flags(u.othello, id)).to.deep.equal([]);
    });

    it("stars a public channel's message the user never received, as historical", async function () {
      const id = await sendToChannel(u.hamlet, "Denmark", "history", "old news");
      expect(await flags(u.polonius, id)).to.equal(undefined);
      // Guests may not read a channel they are not in: nothing is created.
      expectError(await postFlags(u.polonius, [id], "add", "starred"), 400, "Invalid message(s)");
      expect(await flags(u.polonius, id)).to.equal(undefined);
      expectSuccess(await postFlags(u.iago, [id], "add", "starred"));
      expect(await flags(u.iago, id)).to.deep.equal(["read", "starred", "historical"]);
      // Marking read a message one never received is a silent no-op.
      const other = await sendToChannel(u.hamlet, "Denmark", "history", "more");
      expectSuccess(await postFlags(u.desdemona, [other], "add", "read"));
      expect(await flags(u.desdemona, other)).to.equal(undefined);
    });

    it("commits concurrent updates together, a refused one failing alone and changing nothing", async function () {
      const open = await sendToChannel(u.hamlet, "Denmark", "batch", "for all");
      const hidden = await sendToChannel(u.othello, "Secret", "batch", "not for cordelia");
      const queue = (await register(u.othello.client, UNREAD_TYPES)).queue_id as string;
      // Sent at once: they share a write transaction (actions/message-flags.ts, flagCommits).
      const [othello, cordelia, hamlet] = await Promise.all([
        postFlags(u.othello, [open, hidden], "add", "read"),
        postFlags(u.cordelia, [open, hidden], "add", "starred"),
        postFlags(u.hamlet, [open], "add", "starred"),
      ]);
      expectSuccess(othello);
      expectError(cordelia, 400, "Invalid message(s)");
      expectSuccess(hamlet);
      expect(await flags(u.othello, open)).to.deep.equal(["read"]);
      expect(await flags(u.othello, hidden)).to.deep.equal(["read"]);
      expect(await flags(u.cordelia, open)).to.deep.equal([]);
      expect(await flags(u.cordelia, hidden)).to.equal(undefined);
      expect(await flags(u.hamlet, open)).to.include("starred");
      const events = expectSuccess(
        await u.othello.client.get("/events", { queue_id: queue, last_event_id: -1, dont_block: true }),
      ).events as Array<Record<string, unknown>>;
      expect(events.filter((e) => e.type === "update_message_flags")).to.have.length(1);
    });

    it("refuses private channel messages the user cannot read", async function () {
      const id = await sendToChannel(u.othello, "Secret", "plans", "hush");
      expectError(await postFlags(u.cordelia, [id], "add", "starred"), 400, "Invalid message(s)");
      expectError(await postFlags(u.iago, [id], "add", "starred"), 400, "Invalid message(s)");
      expect(await flags(u.cordelia, id)).to.equal(undefined);
      expect(await flags(u.iago, id)).to.equal(undefined);
      void secret;
    });

    it("keeps messages of channels the user left read", async function () {
      const id = await sendToChannel(u.hamlet, "Denmark", "leaving", "bye");
      expectSuccess(await postFlags(u.cordelia, [id], "add", "read"));
      expectSuccess(
        await u.cordelia.client.delete("/users/me/subscriptions", {
          subscriptions: JSON.stringify(["Denmark"]),
        }),
      );
      const res = expectSuccess(await postFlags(u.cordelia, [id], "remove", "read"));
      expect(res.ignored_because_not_subscribed_channels).to.deep.equal([denmark]);
      expect(await flags(u.cordelia, id)).to.deep.equal(["read"]);
      await subscribe(u.cordelia, ["Denmark"]);
    });
  });

  describe("unread_msgs in register", function () {
    it("files unread messages by channel topic, direct and group conversation, with mentions", async function () {
      const own = cast(await server.factory.realm());
      await createChannel(own.hamlet, "Elsinore", [own.hamlet, own.othello]);
      const a = await sendToChannel(own.hamlet, "Elsinore", "ghost", `look @**${own.othello.fullName}**`);
      const b = await sendToChannel(own.hamlet, "Elsinore", "ghost", "again");
      const c = await sendDirect(own.hamlet, [own.othello], "psst");
      const d = await sendDirect(own.cordelia, [own.othello, own.hamlet], "all three");
      const mine = await sendDirect(own.othello, [own.othello], "note to self");
      const state = await register(own.othello.client, {
        fetch_event_types: ["message", "update_message_flags"],
      });
      const unread = state.unread_msgs as Record<string, unknown>;
      expect(unread.pms).to.deep.equal(
        [
          { other_user_id: own.othello.id, sender_id: own.othello.id, unread_message_ids: [mine] },
          { other_user_id: own.hamlet.id, sender_id: own.hamlet.id, unread_message_ids: [c] },
        ].sort((x, y) => x.other_user_id - y.other_user_id),
      );
      // The channel's creation notice, too, is unread for the subscribers hamlet added.
      const streams = unread.streams as Array<Record<string, unknown>>;
      expect(streams.map((s) => s.topic)).to.deep.equal(["channel events", "ghost"]);
      expect(streams[1]!.unread_message_ids).to.deep.equal([a, b]);
      expect(unread.huddles).to.deep.equal([
        {
          user_ids_string: [own.hamlet.id, own.othello.id, own.cordelia.id].sort((x, y) => x - y).join(","),
          unread_message_ids: [d],
        },
      ]);
      expect(unread.mentions).to.deep.equal([a]);
      expect(unread.count).to.equal(6);
      expect(unread.old_unreads_missing).to.equal(false);
    });

    it("register plus message and flag events equals a fresh register", async function () {
      const own = cast(await server.factory.realm());
      await createChannel(own.hamlet, "Elsinore", [own.hamlet, own.othello, own.cordelia]);
      const first = await sendToChannel(own.hamlet, "Elsinore", "ghost", "first");
      for (const viewer of [own.othello, own.cordelia]) {
        await verifyRegisterParity(viewer.client, UNREAD_TYPES, async () => {
          const x = await sendToChannel(own.hamlet, "Elsinore", "ghost", `hey @**${viewer.fullName}**`);
          const y = await sendDirect(own.hamlet, [viewer], "direct");
          const z = await sendDirect(own.hamlet, [viewer, own.iago], "group");
          expectSuccess(await postFlags(viewer, [first, x], "add", "read"));
          expectSuccess(await postFlags(viewer, [x, y], "remove", "read"));
          expectSuccess(await postFlags(viewer, [z], "add", "starred"));
          expectSuccess(
            await viewer.client.post("/mark_topic_as_read", {
              stream_id: await idOf("Elsinore"),
              topic_name: "ghost",
            }),
          );
          await sendToChannel(own.hamlet, "Elsinore", "other", "another topic");
          expectSuccess(await viewer.client.post("/mark_all_as_read"));
          await sendDirect(own.hamlet, [viewer], "after all");
        });
      }
      async function idOf(name: string) {
        const res = expectSuccess(await own.hamlet.client.get("/get_stream_id", { stream: name }));
        return res.stream_id as number;
      }
    });
  });

  describe("bulk mark as read", function () {
    it("marks a channel, a topic, or everything, and checks the channel and topic", async function () {
      const own = cast(await server.factory.realm());
      const court = await createChannel(own.hamlet, "Court", [own.hamlet, own.othello]);
      const hidden = await createChannel(own.hamlet, "Hidden", [own.hamlet], { invite_only: true });
      const t1 = await sendToChannel(own.hamlet, "Court", "one", "1");
      const t2 = await sendToChannel(own.hamlet, "Court", "Two", "2");
      const dm = await sendDirect(own.hamlet, [own.othello], "dm");
      const post = (path: string, params: Params) => own.othello.client.post(path, params);

      expectError(await post("/mark_stream_as_read", { stream_id: hidden }), 400, "Invalid channel ID");
      expectError(
        await post("/mark_topic_as_read", { stream_id: court, topic_name: "nope" }),
        400,
        "No such topic 'nope'",
      );
      expectSuccess(await post("/mark_topic_as_read", { stream_id: court, topic_name: "two" }));
      expect(await flags(own.othello, t2)).to.deep.equal(["read"]);
      expect(await flags(own.othello, t1)).to.deep.equal([]);
      expectSuccess(await post("/mark_stream_as_read", { stream_id: court }));
      expect(await flags(own.othello, t1)).to.deep.equal(["read"]);
      expect(await flags(own.othello, dm)).to.deep.equal([]);
      expect(expectSuccess(await post("/mark_all_as_read", {})).complete).to.equal(true);
      expect(await flags(own.othello, dm)).to.deep.equal(["read"]);
      // The sender's own copies were not touched by the reader.
      expect(await flags(own.hamlet, dm)).to.deep.equal([]);
    });
  });

  describe("POST /messages/flags/narrow", function () {
    it("updates the narrow's anchor window and reports what it processed", async function () {
      const own = cast(await server.factory.realm());
      const hall = await createChannel(own.hamlet, "Hall", [own.hamlet, own.othello]);
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push(await sendToChannel(own.hamlet, "Hall", "speech", `line ${i}`));
      await sendToChannel(own.hamlet, "Hall", "elsewhere", "not in the narrow");
      const narrow = JSON.stringify([
        { operator: "channel", operand: hall },
        { operator: "topic", operand: "speech" },
      ]);
      const res = expectSuccess(
        await own.othello.client.post("/messages/flags/narrow", {
          anchor: String(ids[1]),
          num_before: 0,
          num_after: 2,
          narrow,
          op: "add",
          flag: "read",
        }),
      );
      expect(res).to.include({
        processed_count: 3,
        updated_count: 3,
        first_processed_id: ids[1],
        last_processed_id: ids[3],
        found_oldest: false,
        found_newest: false,
      });
      // Only removing `read` reports skipped channels (SPEC).
      expect(res).not.to.have.property("ignored_because_not_subscribed_channels");
      expect(await flags(own.othello, ids[0]!)).to.deep.equal([]);
      expect(await flags(own.othello, ids[2]!)).to.deep.equal(["read"]);
      // Again: processed, but nothing left to update.
      const again = expectSuccess(
        await own.othello.client.post("/messages/flags/narrow", {
          anchor: "newest",
          num_before: 10,
          num_after: 0,
          narrow,
          op: "add",
          flag: "read",
        }),
      );
      expect(again).to.include({
        processed_count: 5,
        updated_count: 2,
        found_oldest: true,
        found_newest: true,
      });
      expectError(
        await own.othello.client.post("/messages/flags/narrow", {
          anchor: "newest",
          num_before: 1,
          num_after: 0,
          narrow,
          op: "add",
          flag: "mentioned",
        }),
        400,
        "Flag not editable: 'mentioned'",
      );
    });

    it("lists the channels it skipped only when removing read, as SPEC says", async function () {
      const own = cast(await server.factory.realm());
      const hall = await createChannel(own.hamlet, "Hall", [own.hamlet, own.othello]);
      const id = await sendToChannel(own.hamlet, "Hall", "speech", "words");
      expectSuccess(await postFlags(own.othello, [id], "add", "read"));
      expectSuccess(
        await own.othello.client.delete("/users/me/subscriptions", {
          subscriptions: JSON.stringify(["Hall"]),
        }),
      );
      const update = (op: string, flag: string) =>
        own.othello.client.post("/messages/flags/narrow", {
          anchor: "newest",
          num_before: 10,
          num_after: 0,
          narrow: "[]",
          op,
          flag,
        });
      const removeRead = expectSuccess(await update("remove", "read"));
      expect(removeRead.ignored_because_not_subscribed_channels).to.deep.equal([hall]);
      expect(await flags(own.othello, id)).to.deep.equal(["read"]);
      for (const [op, flag] of [
        ["add", "read"],
        ["add", "starred"],
        ["remove", "starred"],
      ] as const) {
        const res = expectSuccess(await update(op, flag));
        expect(res, `${op} ${flag}`).not.to.have.property("ignored_because_not_subscribed_channels");
      }
    });
  });
});
