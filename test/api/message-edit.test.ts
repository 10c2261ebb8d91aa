import { expect } from "chai";
import { cast, createChannel, setRealmFields, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { flagsByUser, messageRow, searchIndex, sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("editing messages", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.cordelia]);
  });
  after(async function () {
    await server.close();
  });

  const edit = (user: TestUser, id: number, params: Params) => user.client.patch(`/messages/${id}`, params);
  const fetchOne = async (user: TestUser, id: number) =>
    expectSuccess(await user.client.get(`/messages/${id}`)).message as Record<string, unknown>;

  it("edits content: re-rendered, timestamped, in history, search and mention flags", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "edits", "a quiet albatross");
    server.clock.advance(5_000);
    expectSuccess(await edit(u.hamlet, id, { content: `a **loud** zebra @**${u.othello.fullName}**` }));
    const message = await fetchOne(u.hamlet, id);
    expect(message.content).to.match(/^<p>a <strong>loud<\/strong> zebra <span class="user-mention"/);
    expect(message.last_edit_timestamp).to.be.a("number");
    expect(message).not.to.have.property("last_moved_timestamp");
    expect((message.edit_history as Array<Record<string, unknown>>)[0]).to.include({
      user_id: u.hamlet.id,
      prev_content: "a quiet albatross",
    });
    expect(await searchIndex(server, "zebra")).to.deep.equal([id]);
    expect(await searchIndex(server, "albatross")).to.deep.equal([]);
    expect((await flagsByUser(server, id)).get(u.othello.id)).to.include("mentioned");
    const history = expectSuccess(await u.othello.client.get(`/messages/${id}/history`))
      .message_history as Array<Record<string, unknown>>;
    expect(history.map((v) => v.content)).to.deep.equal([
      "a quiet albatross",
      `a **loud** zebra @**${u.othello.fullName}**`,
    ]);
    expect(history[1]).to.include({ prev_content: "a quiet albatross", user_id: u.hamlet.id });
  });

  it("lets only the sender edit content, within the time limit; nothing changes when refused", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "edits", "original");
    expectError(
      await edit(u.othello, id, { content: "hijacked" }),
      400,
      "You don't have permission to edit this message",
    );
    expectError(
      await edit(u.iago, id, { content: "hijacked" }),
      400,
      "You don't have permission to edit this message",
    );
    await setRealmFields(server, realm, { message_content_edit_limit_seconds: 60 });
    try {
      server.clock.advance(81_000);
      expectError(
        await edit(u.hamlet, id, { content: "late" }),
        400,
        "The time limit for editing this message has passed",
      );
    } finally {
      await setRealmFields(server, realm, { message_content_edit_limit_seconds: null });
    }
    await setRealmFields(server, realm, { allow_message_editing: false });
    try {
      expectError(
        await edit(u.hamlet, id, { content: "off" }),
        400,
        "Your organization has turned off message editing",
      );
    } finally {
      await setRealmFields(server, realm, { allow_message_editing: true });
    }
    expect((await messageRow(server, id)).content).to.equal("original");
  });

  it("moves a topic with change_one, change_later and change_all", async function () {
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await sendToChannel(u.hamlet, "Denmark", "split", `m${i}`));
    const topicOf = async (id: number) => (await messageRow(server, id)).topic;
    expectSuccess(await edit(u.othello, ids[0]!, { topic: "one" }));
    expect(await Promise.all(ids.map(topicOf))).to.deep.equal(["one", "split", "split", "split"]);
    expectSuccess(await edit(u.othello, ids[2]!, { topic: "later", propagate_mode: "change_later" }));
    expect(await Promise.all(ids.map(topicOf))).to.deep.equal(["one", "split", "later", "later"]);
    expectSuccess(await edit(u.othello, ids[3]!, { topic: "all", propagate_mode: "change_all" }));
    expect(await Promise.all(ids.map(topicOf))).to.deep.equal(["one", "split", "all", "all"]);
    const moved = await fetchOne(u.hamlet, ids[2]!);
    expect(moved.last_moved_timestamp).to.be.a("number");
    expect(moved).not.to.have.property("last_edit_timestamp");
  });

  it("refuses bad edits with Zulip's errors", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "bad", "x");
    const dm = await sendDirect(u.hamlet, [u.othello], "dm");
    expectError(await edit(u.hamlet, id, {}), 400, "Nothing to change");
    expectError(await edit(u.hamlet, id, { topic: "bad" }), 400, "Nothing to change");
    expectError(await edit(u.hamlet, dm, { topic: "t" }), 400, "Direct messages cannot have topics.");
    expectError(
      await edit(u.hamlet, id, { content: "y", propagate_mode: "change_all" }),
      400,
      "Invalid propagate_mode without topic edit",
    );
    expectError(
      await edit(u.hamlet, id, { topic: "z", propagate_mode: "sideways" }),
      400,
      "Invalid propagate_mode",
    );
    expectError(await edit(u.polonius, id, { content: "guest" }), 400, "Invalid message(s)");
    expectError(await edit(u.hamlet, id, { topic: "✔ " }), 400, "General chat cannot be marked as resolved");
    expect((await messageRow(server, id)).topic).to.equal("bad");
  });

  it("resolving a topic is not a move", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "question", "why?");
    expectSuccess(await edit(u.cordelia, id, { topic: "✔ question", propagate_mode: "change_all" }));
    const message = await fetchOne(u.hamlet, id);
    expect(message.subject).to.equal("✔ question");
    expect(message).not.to.have.property("last_moved_timestamp");
  });

  it("sends update_message to the message's recipients, and register plus events equals a fresh register", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "evented", "before");
    const outsider = (await register(u.prospero.client, { event_types: ["update_message"] })) as {
      queue_id: string;
    };
    const events = await verifyRegisterParity(u.othello.client, {}, async () => {
      expectSuccess(await edit(u.hamlet, id, { content: "after" }));
      expectSuccess(await edit(u.hamlet, id, { topic: "renamed", propagate_mode: "change_all" }));
    });
    const updates = events.filter((e) => e.type === "update_message");
    expect(updates[0]).to.include({
      message_id: id,
      orig_content: "before",
      content: "after",
      rendered_content: "<p>after</p>",
      user_id: u.hamlet.id,
      rendering_only: false,
    });
    expect(updates[1]).to.include({
      orig_subject: "evented",
      subject: "renamed",
      propagate_mode: "change_all",
    });
    expect(updates[1]!.flags).to.deep.equal([]);
    expect(await pendingEvents(u.prospero.client, outsider.queue_id)).to.deep.equal([]);
  });

  describe("moving messages between channels", function () {
    it("moves a topic to another channel: losers get delete_message, new subscribers get the messages", async function () {
      const own = cast(await server.factory.realm());
      await createChannel(own.hamlet, "From", [own.hamlet, own.othello, own.cordelia]);
      const to = await createChannel(own.iago, "To", [own.iago, own.hamlet, own.prospero], {
        invite_only: true,
      });
      const ids = [
        await sendToChannel(own.hamlet, "From", "wander", "one"),
        await sendToChannel(own.hamlet, "From", "wander", "two"),
      ];
      const cordelia = (await register(own.cordelia.client, {
        event_types: ["delete_message"],
        client_capabilities: { bulk_message_deletion: true },
      })) as { queue_id: string };
      // A guest outside the channel cannot even see the message.
      expectError(await edit(own.polonius, ids[0]!, { stream_id: to }), 400, "Invalid message(s)");
      expectError(
        await edit(own.hamlet, ids[0]!, { stream_id: to, content: "x" }),
        400,
        "Cannot change message content while changing channel",
      );
      expectSuccess(
        await edit(own.hamlet, ids[0]!, { stream_id: to, topic: "arrived", propagate_mode: "change_all" }),
      );
      for (const id of ids) {
        const row = await messageRow(server, id);
        expect(row).to.include({ stream_id: to, topic: "arrived" });
        const holders = [...(await flagsByUser(server, id)).keys()].sort((a, b) => a - b);
        expect(holders).to.deep.equal([own.hamlet.id, own.iago.id, own.prospero.id].sort((a, b) => a - b));
      }
      const [deleted] = await pendingEvents(own.cordelia.client, cordelia.queue_id);
      expect(deleted).to.deep.include({ type: "delete_message", message_ids: ids });
      expectError(await own.cordelia.client.get(`/messages/${ids[0]}`), 400, "Invalid message(s)");
      const moved = await fetchOne(own.prospero, ids[1]!);
      expect(moved.last_moved_timestamp).to.be.a("number");
      expect((moved.edit_history as Array<Record<string, unknown>>)[0]).to.include({
        stream: to,
        prev_topic: "wander",
        topic: "arrived",
      });
    });

    it("refuses moving direct messages, and moves into channels one may not post in", async function () {
      const own = cast(await server.factory.realm());
      await createChannel(own.hamlet, "Open", [own.hamlet, own.othello]);
      const closed = await createChannel(own.iago, "Closed", [own.iago], { invite_only: true });
      const dm = await sendDirect(own.hamlet, [own.othello], "dm");
      const open = await createChannel(own.othello, "Other", [own.othello]);
      expectError(
        await edit(own.hamlet, dm, { stream_id: open }),
        400,
        "Direct messages cannot be moved to channels.",
      );
      const id = await sendToChannel(own.hamlet, "Open", "t", "stay");
      expectError(await edit(own.hamlet, id, { stream_id: closed }), 400, "Invalid channel ID");
      expect((await messageRow(server, id)).topic).to.equal("t");
    });
  });
});
