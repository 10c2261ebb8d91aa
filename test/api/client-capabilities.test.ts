import { expect } from "chai";
import type { Event } from "../helpers/apply-events.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * Client capabilities that change what a queue gets (bulk_message_deletion,
 * include_deactivated_groups, archived_channels and the message event's
 * empty_topic_name have tests of their own, next to their events).
 */
describe("client capabilities", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let denmark: number;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    denmark = await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
  });
  after(async function () {
    await server.close();
  });

  const capable = (capabilities: Record<string, boolean>): Params => ({ client_capabilities: capabilities });

  async function listen(user: TestUser, params: Params) {
    const state = await register(user.client, params);
    return async () => (await pendingEvents(user.client, state.queue_id as string)).map(withoutId);
  }
  const withoutId = ({ id: _id, ...rest }: Event) => rest;

  describe("stream_typing_notifications", function () {
    it("channel typing goes only to clients that declared it; direct typing to all", async function () {
      const modern = await listen(u.othello, {
        event_types: ["typing"],
        ...capable({ stream_typing_notifications: true }),
      });
      const legacy = await listen(u.othello, { event_types: ["typing"] });
      expectSuccess(
        await u.hamlet.client.post("/typing", {
          type: "channel",
          op: "start",
          stream_id: denmark,
          topic: "castle",
        }),
      );
      expectSuccess(
        await u.hamlet.client.post("/typing", { op: "start", to: JSON.stringify([u.othello.id]) }),
      );
      expect((await modern()).map((e) => e.message_type as string)).to.deep.equal(["stream", "direct"]);
      expect((await legacy()).map((e) => e.message_type as string)).to.deep.equal(["direct"]);
    });
  });

  describe("empty_topic_name", function () {
    const TYPING = { stream_typing_notifications: true };

    it("without it, typing in the empty topic names it by the realm's name", async function () {
      const types = ["typing", "typing_edit_message"];
      const modern = await listen(u.othello, {
        event_types: types,
        ...capable({ ...TYPING, empty_topic_name: true }),
      });
      const legacy = await listen(u.othello, { event_types: types, ...capable(TYPING) });
      expectSuccess(
        await u.hamlet.client.post("/typing", { type: "channel", op: "stop", stream_id: denmark, topic: "" }),
      );
      const id = await sendToChannel(u.hamlet, "Denmark", "", "being edited");
      expectSuccess(await u.hamlet.client.post(`/messages/${id}/typing`, { op: "start" }));
      const topics = (events: Event[]) =>
        events.map((e) => (e.type === "typing" ? e.topic : e.recipient.topic) as string);
      expect(topics(await modern())).to.deep.equal(["", ""]);
      expect(topics(await legacy())).to.deep.equal(["general chat", "general chat"]);
    });

    it("without it, edits, deletions and unread details name the empty topic", async function () {
      const types = { event_types: ["update_message", "delete_message", "update_message_flags"] };
      const modern = await listen(u.othello, { ...types, ...capable({ empty_topic_name: true }) });
      const legacy = await listen(u.othello, types);
      const moved = await sendToChannel(u.hamlet, "Denmark", "", "into the void");
      expectSuccess(await u.hamlet.client.patch(`/messages/${moved}`, { topic: "found" }));
      expectSuccess(await u.hamlet.client.patch(`/messages/${moved}`, { topic: "" }));
      const marked = await sendToChannel(u.hamlet, "Denmark", "", "read me twice");
      for (const op of ["add", "remove"]) {
        expectSuccess(
          await u.othello.client.post("/messages/flags", {
            messages: JSON.stringify([marked]),
            op,
            flag: "read",
          }),
        );
      }
      expectSuccess(await u.iago.client.delete(`/messages/${moved}`));
      const topics = (events: Event[]): unknown[][] =>
        events.map((e): unknown[] =>
          e.type === "update_message"
            ? [e.orig_subject, e.subject]
            : e.type === "delete_message"
              ? [e.topic]
              : Object.values((e.message_details ?? {}) as Record<string, Event>).map(
                  (d): unknown => d.topic,
                ),
        );
      expect(topics(await modern())).to.deep.equal([["", "found"], ["found", ""], [], [""], [""]]);
      expect(topics(await legacy())).to.deep.equal([
        ["general chat", "found"],
        ["found", "general chat"],
        [],
        ["general chat"],
        ["general chat"],
      ]);
    });

    it("without it, unread_msgs names the empty topic; register state plus events stays a register", async function () {
      const own = await server.factory.realm();
      const c = cast(own);
      await createChannel(c.hamlet, "Elsinore", [c.hamlet, c.othello]);
      const first = await sendToChannel(c.hamlet, "Elsinore", "", "before");
      const types = { fetch_event_types: ["message", "update_message_flags"] };
      const state = await register(c.othello.client, types);
      const streams = (state.unread_msgs as { streams: Event[] }).streams;
      expect(streams.find((s) => s.unread_message_ids.includes(first))!.topic).to.equal("general chat");
      const modern = await register(c.othello.client, { ...types, ...capable({ empty_topic_name: true }) });
      const modernStreams = (modern.unread_msgs as { streams: Event[] }).streams;
      expect(modernStreams.find((s) => s.unread_message_ids.includes(first))!.topic).to.equal("");

      for (const params of [types, { ...types, ...capable({ empty_topic_name: true }) }]) {
        await verifyRegisterParity(c.othello.client, params, async () => {
          const id = await sendToChannel(c.hamlet, "Elsinore", "", "during");
          await sendToChannel(c.hamlet, "Elsinore", "named", "elsewhere");
          expectSuccess(await c.hamlet.client.patch(`/messages/${id}`, { topic: "renamed" }));
          expectSuccess(
            await c.othello.client.post("/messages/flags", {
              messages: JSON.stringify([first]),
              op: "add",
              flag: "read",
            }),
          );
          expectSuccess(
            await c.othello.client.post("/messages/flags", {
              messages: JSON.stringify([first]),
              op: "remove",
              flag: "read",
            }),
          );
        });
      }
    });
  });

  describe("notification_settings_null", function () {
    const SETTINGS = [
      "desktop_notifications",
      "audible_notifications",
      "push_notifications",
      "email_notifications",
    ];

    it("without it, channel settings left to inherit show the user's default; with it, null", async function () {
      expectSuccess(
        await u.othello.client.post("/users/me/subscriptions/properties", {
          subscription_data: JSON.stringify([
            { stream_id: denmark, property: "push_notifications", value: true },
          ]),
        }),
      );
      const sub = (state: Event) => (state.subscriptions as Event[]).find((s) => s.stream_id === denmark)!;
      const legacy = sub(await register(u.othello.client, { fetch_event_types: ["subscription"] }));
      const modern = sub(
        await register(u.othello.client, {
          fetch_event_types: ["subscription"],
          ...capable({ notification_settings_null: true }),
        }),
      );
      for (const setting of SETTINGS) {
        const chosen = setting === "push_notifications";
        expect(legacy[setting], setting).to.equal(chosen);
        expect(modern[setting], setting).to.equal(chosen ? true : null);
      }
      // Zulip leaves wildcard_mentions_notify as it is.
      expect(legacy.wildcard_mentions_notify).to.equal(null);
    });
  });

  describe("capabilities with nothing to change in chatd yet", function () {
    // No linkifiers, no users hidden from others, no GET /avatar/{id} to send clients to
    // instead of avatar_url, no custom emoji: the same state with and without each.
    for (const capability of [
      "linkifier_url_template",
      "user_list_incomplete",
      "user_avatar_url_field_optional",
      "individual_emoji_changes",
    ]) {
      it(`${capability} leaves register's state as it is`, async function () {
        const state = async (params: Params) => {
          const {
            queue_id: _queue,
            last_event_id: _last,
            server_timestamp: _now,
            ...rest
          } = await register(u.hamlet.client, params);
          return rest;
        };
        expect(await state(capable({ [capability]: true }))).to.deep.equal(await state(capable({})));
      });
    }
  });
});
