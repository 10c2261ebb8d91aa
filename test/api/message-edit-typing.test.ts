import { expect } from "chai";
import { cast, createChannel, deactivateUser, setRealmFields, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("POST /messages/{message_id}/typing", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let denmark: number;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    denmark = await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.cordelia]);
    await createChannel(u.othello, "Secret", [u.othello, u.hamlet], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  const typing = (user: TestUser, id: number, op: string) =>
    user.client.post(`/messages/${id}/typing`, { op });
  const listen = async (users: TestUser[]) => {
    const queues = new Map<TestUser, string>();
    for (const user of users) {
      queues.set(
        user,
        (await register(user.client, { event_types: ["typing_edit_message"] })).queue_id as string,
      );
    }
    return queues;
  };
  const received = async (queues: Map<TestUser, string>) => {
    const out = new Map<TestUser, unknown[]>();
    for (const [user, queue] of queues) out.set(user, await pendingEvents(user.client, queue));
    return out;
  };

  it("tells a channel's subscribers, the editor included, about a message's edit", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "castle", "draft");
    const queues = await listen([u.hamlet, u.othello, u.cordelia, u.iago]);
    expectSuccess(await typing(u.hamlet, id, "start"));
    expectSuccess(await typing(u.hamlet, id, "stop"));
    const event = (op: string, n: number) => ({
      type: "typing_edit_message",
      op,
      sender_id: u.hamlet.id,
      message_id: id,
      recipient: { type: "channel", channel_id: denmark, topic: "castle" },
      id: n,
    });
    const events = await received(queues);
    for (const user of [u.hamlet, u.othello, u.cordelia]) {
      expect(events.get(user), user.email).to.deep.equal([event("start", 0), event("stop", 1)]);
    }
    expect(events.get(u.iago)).to.deep.equal([]);
  });

  it("tells a direct conversation's active participants", async function () {
    const ownRealm = await server.factory.realm();
    const own = cast(ownRealm);
    const dm = await sendDirect(own.hamlet, [own.othello], "draft");
    const group = await sendDirect(own.hamlet, [own.othello, own.cordelia, own.prospero], "group draft");
    const self = await sendDirect(own.hamlet, [own.hamlet], "note");
    const queues = await listen([own.hamlet, own.othello, own.cordelia]);
    expectSuccess(await typing(own.hamlet, dm, "start"));
    const events = await received(queues);
    const pair = { type: "direct", user_ids: [own.hamlet.id, own.othello.id] };
    for (const user of [own.hamlet, own.othello]) {
      expect(events.get(user), user.email).to.deep.equal([
        {
          type: "typing_edit_message",
          op: "start",
          sender_id: own.hamlet.id,
          message_id: dm,
          recipient: pair,
          id: 0,
        },
      ]);
    }
    expect(events.get(own.cordelia)).to.deep.equal([]);

    // A note to oneself; a group whose deactivated member hears nothing and is not listed.
    await deactivateUser(server, ownRealm, own.prospero);
    const again = await listen([own.hamlet, own.othello, own.cordelia]);
    expectSuccess(await typing(own.hamlet, self, "start"));
    expectSuccess(await typing(own.hamlet, group, "stop"));
    const later = await received(again);
    const trio = [own.hamlet.id, own.othello.id, own.cordelia.id].sort((a, b) => a - b);
    expect((later.get(own.hamlet) as Array<{ recipient: unknown }>).map((e) => e.recipient)).to.deep.equal([
      { type: "direct", user_ids: [own.hamlet.id] },
      { type: "direct", user_ids: trio },
    ]);
    expect(later.get(own.cordelia)).to.have.lengthOf(1);
  });

  it("honours the editor's send_*_typing_notifications and the recipients' receives_typing_notifications", async function () {
    const ownRealm = await server.factory.realm();
    const own = cast(ownRealm);
    await createChannel(own.hamlet, "Elsinore", [own.hamlet, own.othello, own.cordelia]);
    const inChannel = await sendToChannel(own.hamlet, "Elsinore", "castle", "draft");
    const direct = await sendDirect(own.hamlet, [own.othello], "draft");
    const settings = async (user: TestUser, params: Record<string, boolean>) => {
      expectSuccess(await user.client.patch("/settings", params));
    };
    const queues = await listen([own.othello, own.cordelia]);
    await settings(own.hamlet, { send_stream_typing_notifications: false });
    expectError(
      await typing(own.hamlet, inChannel, "start"),
      400,
      "User has disabled typing notifications for channel messages",
    );
    expectSuccess(await typing(own.hamlet, direct, "start"));
    await settings(own.hamlet, {
      send_stream_typing_notifications: true,
      send_private_typing_notifications: false,
    });
    expectError(
      await typing(own.hamlet, direct, "stop"),
      400,
      "User has disabled typing notifications for direct messages",
    );
    await settings(own.cordelia, { receives_typing_notifications: false });
    expectSuccess(await typing(own.hamlet, inChannel, "stop"));
    const events = await received(queues);
    const messageIds = (user: TestUser) =>
      (events.get(user) as Array<{ message_id: number }>).map((e) => e.message_id);
    expect(messageIds(own.othello)).to.deep.equal([direct, inChannel]);
    expect(messageIds(own.cordelia)).to.deep.equal([]);
  });

  it("is only for whoever may edit the message's content now", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "castle", "mine");
    const secret = await sendToChannel(u.othello, "Secret", "plans", "hush");
    const queues = await listen([u.hamlet, u.othello]);
    expectError(await typing(u.othello, id, "start"), 400, "You don't have permission to edit this message");
    expectError(await typing(u.cordelia, secret, "start"), 400, "Invalid message(s)");
    expectError(await typing(u.hamlet, 99999999, "start"), 400, "Invalid message(s)");
    expectError(await typing(u.hamlet, id, "dance"), 400, "Invalid op");
    expectError(
      await u.hamlet.client.post(`/messages/${id}/typing`, {}),
      400,
      "Missing 'op' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    await setRealmFields(server, realm, { allow_message_editing: false });
    try {
      expectError(
        await typing(u.hamlet, id, "start"),
        400,
        "Your organization has turned off message editing",
      );
    } finally {
      await setRealmFields(server, realm, { allow_message_editing: true });
    }
    // Zulip's default limit (600 s), with no grace period for typing.
    server.clock.advance(601_000);
    expectError(
      await typing(u.hamlet, id, "start"),
      400,
      "The time limit for editing this message has passed",
    );
    const archive = await createChannel(u.hamlet, "Attic", [u.hamlet]);
    const old = await sendToChannel(u.hamlet, "Attic", "x", "dusty");
    expectSuccess(await u.iago.client.delete(`/streams/${archive}`));
    expectError(await typing(u.hamlet, old, "start"), 400, "Invalid message(s)");
    for (const [user, events] of await received(queues)) expect(events, user.email).to.deep.equal([]);
  });

  it("changes no register state", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "castle", "parity");
    await verifyRegisterParity(u.othello.client, {}, async () => {
      expectSuccess(await typing(u.hamlet, id, "start"));
    });
  });
});
