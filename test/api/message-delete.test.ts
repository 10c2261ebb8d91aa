import { expect } from "chai";
import { cast, createChannel, setRealmFields, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { messageCount, searchIndex, sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("deleting messages and topics", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let denmark: number;

  before(async function () {
    // Tiny batches and no time budget: every delete_topic request is one round.
    server = await startTestServer({ delete_topic_batch_size: 2, delete_topic_time_budget_ms: 0 });
    realm = await server.factory.realm();
    u = cast(realm);
    denmark = await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.cordelia]);
    await createChannel(u.othello, "Secret", [u.othello, u.hamlet], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  const exists = async (id: number) =>
    (await server.app.knex("messages").where({ id }).first()) !== undefined;
  const del = (user: TestUser, id: number) => user.client.delete(`/messages/${id}`);

  describe("DELETE /messages/{id}", function () {
    it("lets the sender delete its own message, with its flags, reactions and search entry", async function () {
      const id = await sendToChannel(u.othello, "Denmark", "oops", "a regrettable zeppelin");
      expectSuccess(await u.hamlet.client.post(`/messages/${id}/reactions`, { emoji_name: "smile" }));
      expect(await searchIndex(server, "zeppelin")).to.deep.equal([id]);
      expectSuccess(await del(u.othello, id));
      expect(await exists(id)).to.equal(false);
      expect(await server.app.knex("user_messages").where({ message_id: id }).first()).to.equal(undefined);
      expect(await server.app.knex("reactions").where({ message_id: id }).first()).to.equal(undefined);
      expect(await searchIndex(server, "zeppelin")).to.deep.equal([]);
      expectError(await u.othello.client.get(`/messages/${id}`), 400, "Invalid message(s)");
    });

    it("refuses other members; administrators may delete anyone's message", async function () {
      const id = await sendToChannel(u.othello, "Denmark", "mine", "keep out");
      expectError(await del(u.cordelia, id), 400, "You don't have permission to delete this message");
      expectError(await del(u.prospero, id), 400, "You don't have permission to delete this message");
      expect(await exists(id)).to.equal(true);
      expectSuccess(await del(u.iago, id));
      expect(await exists(id)).to.equal(false);
    });

    it("refuses messages the caller cannot see, and enforces the deletion time limit", async function () {
      const secret = await sendToChannel(u.othello, "Secret", "plans", "hidden");
      expectError(await del(u.cordelia, secret), 400, "Invalid message(s)");
      expectError(await del(u.othello, 999999), 400, "Invalid message(s)");
      expect(await exists(secret)).to.equal(true);
      await setRealmFields(server, realm, { message_content_delete_limit_seconds: 60 });
      try {
        const id = await sendToChannel(u.othello, "Denmark", "late", "too late");
        server.clock.advance(61_000);
        expectError(await del(u.othello, id), 400, "The time limit for deleting this message has passed");
        expect(await exists(id)).to.equal(true);
        // The limit does not bind those who may delete any message.
        expectSuccess(await del(u.iago, id));
      } finally {
        await setRealmFields(server, realm, { message_content_delete_limit_seconds: null });
      }
    });

    it("sends delete_message to those who had the message, bulk or one per message by capability", async function () {
      const id = await sendDirect(u.othello, [u.hamlet], "private words");
      const bulk = (await register(u.hamlet.client, {
        event_types: ["delete_message"],
        client_capabilities: { bulk_message_deletion: true },
      })) as { queue_id: string };
      const legacy = (await register(u.othello.client, { event_types: ["delete_message"] })) as {
        queue_id: string;
      };
      const outsider = (await register(u.cordelia.client, { event_types: ["delete_message"] })) as {
        queue_id: string;
      };
      expectSuccess(await del(u.othello, id));
      const [bulkEvent] = await pendingEvents(u.hamlet.client, bulk.queue_id);
      expect(bulkEvent).to.deep.include({
        type: "delete_message",
        message_ids: [id],
        message_type: "private",
      });
      const [legacyEvent] = await pendingEvents(u.othello.client, legacy.queue_id);
      expect(legacyEvent).to.deep.include({
        type: "delete_message",
        message_id: id,
        message_type: "private",
      });
      expect(legacyEvent).not.to.have.property("message_ids");
      expect(await pendingEvents(u.cordelia.client, outsider.queue_id)).to.deep.equal([]);
    });

    it("updates the channel's first_message_id when its first message goes", async function () {
      const own = cast(await server.factory.realm());
      const court = await createChannel(own.hamlet, "Court", [own.hamlet, own.othello]);
      const first = (
        await server.app.knex("streams").where({ id: court }).first<{ first_message_id: number }>()
      ).first_message_id;
      const second = await sendToChannel(own.hamlet, "Court", "t", "second");
      const events = await verifyRegisterParity(own.othello.client, {}, async () => {
        expectSuccess(await del(own.iago, first));
      });
      expect(events.find((e) => e.property === "first_message_id")).to.include({
        value: second,
        stream_id: court,
      });
      await sendToChannel(own.hamlet, "Court", "t", "newest stays");
      await verifyRegisterParity(own.othello.client, {}, async () => {
        expectSuccess(await del(own.hamlet, second));
      });
    });
  });

  describe("POST /streams/{id}/delete_topic", function () {
    it("is for administrators only (UNAUTHORIZED_PRINCIPAL), deleting nothing otherwise", async function () {
      const id = await sendToChannel(u.hamlet, "Denmark", "guarded", "stays");
      const res = await u.hamlet.client.post(`/streams/${denmark}/delete_topic`, { topic_name: "guarded" });
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal("UNAUTHORIZED_PRINCIPAL");
      expect(await exists(id)).to.equal(true);
    });

    it("deletes newest first in rounds until complete, ignoring case, leaving other topics", async function () {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++)
        ids.push(await sendToChannel(u.hamlet, "Denmark", i % 2 ? "Doomed" : "doomed", `m${i}`));
      const keep = await sendToChannel(u.hamlet, "Denmark", "safe", "stays");
      const queue = (await register(u.othello.client, {
        event_types: ["delete_message"],
        client_capabilities: { bulk_message_deletion: true },
      })) as { queue_id: string };
      const before = await messageCount(server);
      const rounds: boolean[] = [];
      for (let i = 0; i < 10; i++) {
        const res = expectSuccess(
          await u.iago.client.post(`/streams/${denmark}/delete_topic`, { topic_name: "DOOMED" }),
        );
        rounds.push(res.complete as boolean);
        if (res.complete) break;
      }
      // Batches of two: 2 + 2 + 1, then a round that finds nothing left.
      expect(rounds).to.deep.equal([false, false, false, true]);
      expect(await messageCount(server)).to.equal(before - 5);
      expect(await exists(keep)).to.equal(true);
      const events = await pendingEvents(u.othello.client, queue.queue_id);
      expect(events.map((e) => e.message_ids as number[])).to.deep.equal([
        [ids[3], ids[4]],
        [ids[1], ids[2]],
        [ids[0]],
      ]);
      expect(events[0]).to.include({ message_type: "stream", stream_id: denmark, topic: "doomed" });
    });

    it("reads the empty topic's display name as the empty topic, and checks the channel", async function () {
      const empty = await sendToChannel(u.hamlet, "Denmark", "", "in the empty topic");
      const round = async () =>
        expectSuccess(
          await u.iago.client.post(`/streams/${denmark}/delete_topic`, { topic_name: "general chat" }),
        ).complete as boolean;
      expect([await round(), await round()]).to.deep.equal([false, true]);
      expect(await exists(empty)).to.equal(false);
      const secretId = (await server.app.knex("streams").where({ name: "Secret" }).first<{ id: number }>())
        .id;
      const hidden = await sendToChannel(u.othello, "Secret", "plans", "hidden");
      // iago is an administrator but not subscribed: the private channel's content is not his.
      const refused = await u.iago.client.post(`/streams/${secretId}/delete_topic`, { topic_name: "plans" });
      expect(refused.status).to.equal(400);
      expect(await exists(hidden)).to.equal(true);
    });
  });
});
