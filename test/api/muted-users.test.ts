import { expect } from "chai";
import { ROLE } from "../../src/world/roles.js";
import { cast, createChannel, deactivateUser } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("muted users", function () {
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
    await createChannel(u.hamlet, "Verona", [u.hamlet, u.othello, u.cordelia]);
    return { realm, u };
  };
  const mute = (user: TestUser, id: number) => user.client.post(`/users/me/muted_users/${id}`);
  const unmute = (user: TestUser, id: number) => user.client.delete(`/users/me/muted_users/${id}`);
  const mutedUsers = async (user: TestUser) =>
    (await register(user.client, { fetch_event_types: ["muted_users"] })).muted_users as Array<{
      id: number;
      timestamp: number;
    }>;
  const flagsOf = async (user: TestUser, messageId: number) => {
    const body = expectSuccess(await user.client.get(`/messages/${messageId}`));
    return (body.message as { flags: string[] }).flags;
  };

  it("mutes and unmutes users, bots and deactivated users included, in the order muted", async function () {
    const { realm, u } = await fresh();
    const bot = await server.factory.user(realm.id, "bottom", ROLE.MEMBER, {
      isBot: true,
      botOwnerId: u.iago.id,
    });
    await deactivateUser(server, realm, u.prospero);
    const now = Math.floor(server.clock.nowMs() / 1000);
    expectSuccess(await mute(u.hamlet, u.othello.id));
    server.clock.advance(5000);
    expectSuccess(await mute(u.hamlet, bot.id));
    expectSuccess(await mute(u.hamlet, u.prospero.id));
    const muted = await mutedUsers(u.hamlet);
    expect(muted.map((m) => m.id)).to.deep.equal([u.othello.id, bot.id, u.prospero.id]);
    // The clock runs in real time too: allow a second or two.
    expect(muted[0]!.timestamp).to.be.within(now, now + 2);
    expect(muted[1]!.timestamp).to.be.within(now + 5, now + 7);
    expect(await mutedUsers(u.othello)).to.deep.equal([]);
    expectSuccess(await unmute(u.hamlet, bot.id));
    expect((await mutedUsers(u.hamlet)).map((m) => m.id)).to.deep.equal([u.othello.id, u.prospero.id]);
  });

  it("refuses muting oneself, unknown users and repeats, and unmuting who is not muted", async function () {
    const { u } = await fresh();
    const other = cast(await server.factory.realm(undefined, "Elsewhere"));
    expectError(await mute(u.hamlet, u.hamlet.id), 400, "Cannot mute self");
    expectError(await mute(u.hamlet, 999999), 400, "No such user");
    expectError(await mute(u.hamlet, other.othello.id), 400, "No such user");
    expectError(await unmute(u.hamlet, 999999), 400, "No such user");
    expectError(await unmute(u.hamlet, u.othello.id), 400, "User is not muted");
    expect(await mutedUsers(u.hamlet)).to.deep.equal([]);
    expectSuccess(await mute(u.hamlet, u.othello.id));
    expectError(await mute(u.hamlet, u.othello.id), 400, "User already muted");
    expectError(await u.hamlet.client.post("/users/me/muted_users/abc"), 400, "Invalid muted_user_id");
    expect((await mutedUsers(u.hamlet)).map((m) => m.id)).to.deep.equal([u.othello.id]);
  });

  it("marks the muted user's unread messages read, then tells the user; state plus events equals a fresh register", async function () {
    const { u } = await fresh();
    const fromOthello = [
      await sendToChannel(u.othello, "Verona", "castle", "one"),
      await sendDirect(u.othello, [u.hamlet], "two"),
      await sendDirect(u.othello, [u.hamlet, u.cordelia], "three"),
    ];
    const fromCordelia = await sendToChannel(u.cordelia, "Verona", "castle", "four");
    const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
      expectSuccess(await mute(u.hamlet, u.othello.id));
      expectSuccess(await unmute(u.hamlet, u.othello.id));
    });
    expect(events.map((e) => e.type as string)).to.deep.equal([
      "update_message_flags",
      "muted_users",
      "muted_users",
    ]);
    expect(events[0]).to.deep.include({ op: "add", flag: "read", messages: fromOthello, all: false });
    expect(events[1]!.muted_users).to.have.lengthOf(1);
    expect(events[2]!.muted_users).to.deep.equal([]);
    for (const id of fromOthello) expect(await flagsOf(u.hamlet, id)).to.include("read");
    expect(await flagsOf(u.hamlet, fromCordelia)).to.not.include("read");
    // Unmuting leaves them read; others' copies are untouched.
    expect(await flagsOf(u.cordelia, fromOthello[0]!)).to.not.include("read");
    // Nothing unread to mark: no flag event.
    const again = await verifyRegisterParity(u.hamlet.client, {}, async () => {
      expectSuccess(await mute(u.hamlet, u.othello.id));
    });
    expect(again.map((e) => e.type as string)).to.deep.equal(["muted_users"]);
  });

  it("delivers the muted user's new messages read, in channels and direct messages", async function () {
    const { u } = await fresh();
    expectSuccess(await mute(u.hamlet, u.othello.id));
    const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
      await sendToChannel(u.othello, "Verona", "castle", "muted channel message");
      await sendDirect(u.othello, [u.hamlet], "muted direct message");
      await sendToChannel(u.cordelia, "Verona", "castle", "not muted");
    });
    expect(events.map((e) => [e.type as string, e.flags as string[]])).to.deep.equal([
      ["message", ["read"]],
      ["message", ["read"]],
      ["message", []],
    ]);
    const unread = (await register(u.hamlet.client)).unread_msgs as { count: number; pms: unknown[] };
    expect(unread.count).to.equal(1);
    expect(unread.pms).to.deep.equal([]);
    // Others still get them unread; once unmuted, so does the user.
    const toCordelia = await sendToChannel(u.othello, "Verona", "castle", "again");
    expect(await flagsOf(u.cordelia, toCordelia)).to.deep.equal([]);
    expect(await flagsOf(u.hamlet, toCordelia)).to.deep.equal(["read"]);
    expectSuccess(await unmute(u.hamlet, u.othello.id));
    const after = await sendToChannel(u.othello, "Verona", "castle", "unmuted");
    expect(await flagsOf(u.hamlet, after)).to.deep.equal([]);
  });
});
