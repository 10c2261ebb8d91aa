import { expect } from "chai";
import { cast, createChannel, deactivateUser, setRealmFields, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("GET /messages/{message_id}/read_receipts", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    await setRealmFields(server, realm, { enable_read_receipts: true });
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.cordelia, u.prospero, u.polonius]);
    await createChannel(u.othello, "Secret", [u.othello, u.hamlet], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  const receipts = async (viewer: TestUser, id: number) =>
    expectSuccess(await viewer.client.get(`/messages/${id}/read_receipts`)).user_ids as number[];
  const markRead = async (user: TestUser, id: number) => {
    const res = await user.client.post("/messages/flags", {
      messages: JSON.stringify([id]),
      op: "add",
      flag: "read",
    });
    expectSuccess(res);
  };
  const setSetting = async (user: TestUser, settings: Record<string, boolean>) => {
    expectSuccess(await user.client.patch("/settings", settings));
  };

  it("lists who read the message, ascending, never its sender; the viewer too", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "news", "read me");
    expect(await receipts(u.hamlet, id)).to.deep.equal([]);
    await markRead(u.othello, id);
    await markRead(u.cordelia, id);
    expect(await receipts(u.hamlet, id)).to.deep.equal([u.othello.id, u.cordelia.id].sort((a, b) => a - b));
    expect(await receipts(u.othello, id)).to.include(u.othello.id);
    // Someone who read a public channel's history counts too (historical copies).
    expectSuccess(
      await u.iago.client.post("/messages/flags", {
        messages: JSON.stringify([id]),
        op: "add",
        flag: "starred",
      }),
    );
    expect(await receipts(u.hamlet, id)).to.include(u.iago.id);
    // Marking it unread again takes the reader out.
    expectSuccess(
      await u.cordelia.client.post("/messages/flags", {
        messages: JSON.stringify([id]),
        op: "remove",
        flag: "read",
      }),
    );
    expect(await receipts(u.hamlet, id)).not.to.include(u.cordelia.id);
  });

  it("honours send_read_receipts, muting both ways, deactivation; bots count", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "privacy", "who saw this?");
    for (const reader of [u.othello, u.cordelia, u.prospero, u.polonius]) await markRead(reader, id);
    const all = [u.othello.id, u.cordelia.id, u.prospero.id, u.polonius.id].sort((a, b) => a - b);
    expect(await receipts(u.hamlet, id)).to.deep.equal(all);

    await setSetting(u.cordelia, { send_read_receipts: false });
    expect(await receipts(u.hamlet, id)).not.to.include(u.cordelia.id);
    await setSetting(u.cordelia, { send_read_receipts: true });
    expect(await receipts(u.hamlet, id)).to.include(u.cordelia.id);

    // Prospero mutes Hamlet; Hamlet mutes Polonius.
    await server.app.knex("muted_users").insert([
      { user_id: u.prospero.id, muted_user_id: u.hamlet.id, date_muted: 0 },
      { user_id: u.hamlet.id, muted_user_id: u.polonius.id, date_muted: 0 },
    ]);
    expect(await receipts(u.hamlet, id)).to.deep.equal([u.othello.id, u.cordelia.id].sort((a, b) => a - b));
    expect(await receipts(u.othello, id)).to.deep.equal(all);
    await server.app.knex("muted_users").where({ muted_user_id: u.hamlet.id }).delete();
    await server.app.knex("muted_users").where({ user_id: u.hamlet.id }).delete();

    await deactivateUser(server, realm, u.polonius);
    expect(await receipts(u.othello, id)).not.to.include(u.polonius.id);

    const bot = await server.factory.user(realm.id, "botty", undefined, {
      isBot: true,
      botOwnerId: u.hamlet.id,
    });
    const dm = await sendDirect(u.hamlet, [bot], "process this");
    await markRead(bot, dm);
    expect(await receipts(u.hamlet, dm)).to.deep.equal([bot.id]);
  });

  it("refuses messages the user cannot read, and organizations without read receipts", async function () {
    const secret = await sendToChannel(u.othello, "Secret", "plans", "hush");
    expectError(await u.cordelia.client.get(`/messages/${secret}/read_receipts`), 400, "Invalid message(s)");
    expectError(await u.cordelia.client.get("/messages/99999999/read_receipts"), 400, "Invalid message(s)");
    expectError(await u.cordelia.client.get("/messages/abc/read_receipts"), 400, "Invalid message_id");
    await setRealmFields(server, realm, { enable_read_receipts: false });
    try {
      expectError(
        await u.hamlet.client.get(`/messages/${secret}/read_receipts`),
        400,
        "Read receipts are disabled in this organization.",
      );
      expectError(
        await u.cordelia.client.get(`/messages/${secret}/read_receipts`),
        400,
        "Invalid message(s)",
      );
    } finally {
      await setRealmFields(server, realm, { enable_read_receipts: true });
    }
  });

  it("works out of the box: a new organization requires invitations, so read receipts start on (Zulip's rule)", async function () {
    const fresh = await server.factory.realm();
    const { hamlet, othello } = cast(fresh);
    const state = expectSuccess(await hamlet.client.post("/register", { fetch_event_types: ["realm"] }));
    expect(state).to.include({ realm_invite_required: true, realm_enable_read_receipts: true });
    await createChannel(hamlet, "Elsinore", [hamlet, othello]);
    const id = await sendToChannel(hamlet, "Elsinore", "news", "read me");
    await markRead(othello, id);
    expect(await receipts(hamlet, id)).to.deep.equal([othello.id]);
  });
});
