import { expect } from "chai";
import { cast, createChannel, subscribe, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import type { TestUser } from "../helpers/factories.js";
import { flagsByUser, messageRow, sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * accessMessage (Zulip's access_message) as every endpoint taking a message ID applies
 * it: a missing message and a forbidden one are the same "Invalid message(s)", and a
 * refused request changes nothing.
 */
describe("message access", function () {
  let server: TestServer;
  let u: Cast;
  /** Messages: public, direct, private, protected history before/after a late subscription. */
  const m: Record<string, number> = {};

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    await createChannel(u.hamlet, "Verona", [u.hamlet, u.othello]);
    await createChannel(u.othello, "Secret", [u.othello], { invite_only: true });
    await createChannel(u.othello, "Vault", [u.othello], { invite_only: true });
    await createChannel(u.othello, "Library", [u.othello], {
      invite_only: true,
      history_public_to_subscribers: true,
    });
    m.open = await sendToChannel(u.hamlet, "Verona", "square", "public");
    m.direct = await sendDirect(u.hamlet, [u.othello], "between us");
    m.secret = await sendToChannel(u.othello, "Secret", "plans", "private");
    m.vaultBefore = await sendToChannel(u.othello, "Vault", "gold", "before hamlet");
    m.libraryBefore = await sendToChannel(u.othello, "Library", "books", "before hamlet");
    await subscribe(u.othello, ["Vault", "Library"], [u.hamlet]);
    m.vaultAfter = await sendToChannel(u.othello, "Vault", "gold", "after hamlet");
  });
  after(async function () {
    await server.close();
  });

  const reactionCount = async (id: number) =>
    Number(
      (
        await server.app.knex("reactions").where({ message_id: id }).count<Array<{ n: number }>>("id as n")
      )[0]!.n,
    );

  /** GET /messages: the newest messages of a one-term narrow. */
  const newest = (user: TestUser, term: { operator: string; operand: number }) =>
    user.client.get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [term] });

  /** Every message-ID endpoint refuses `user` the message, and nothing changes. */
  async function expectRefusedEverywhere(user: TestUser, id: number) {
    const before = await messageRow(server, id);
    const flags = await flagsByUser(server, id);
    const invalid = (res: Awaited<ReturnType<TestUser["client"]["get"]>>) =>
      expectError(res, 400, "Invalid message(s)");
    invalid(await user.client.get(`/messages/${id}`));
    invalid(await user.client.get(`/messages/${id}/history`));
    invalid(await user.client.patch(`/messages/${id}`, { content: "changed" }));
    invalid(await user.client.delete(`/messages/${id}`));
    invalid(await user.client.post(`/messages/${id}/reactions`, { emoji_name: "smile" }));
    invalid(await user.client.delete(`/messages/${id}/reactions`, { emoji_name: "smile" }));
    invalid(await user.client.post("/messages/flags", { messages: [id], op: "add", flag: "starred" }));
    // The bulk form refuses the whole request for one bad ID.
    invalid(
      await user.client.post("/messages/flags", { messages: [m.open!, id], op: "add", flag: "starred" }),
    );
    expectError(
      await newest(user, { operator: "with", operand: id }),
      400,
      "Invalid narrow operator: Invalid 'with' operator",
      "BAD_NARROW",
    );
    expect(await messageRow(server, id)).to.deep.equal(before);
    expect(await flagsByUser(server, id)).to.deep.equal(flags);
    expect(await reactionCount(id)).to.equal(0);
    expect((await flagsByUser(server, m.open!)).get(user.id) ?? []).not.to.include("starred");
  }

  it("refuses a message that does not exist", async function () {
    expectError(await u.hamlet.client.get("/messages/999999"), 400, "Invalid message(s)");
    expectError(
      await u.hamlet.client.post("/messages/999999/reactions", { emoji_name: "smile" }),
      400,
      "Invalid message(s)",
    );
    expectError(
      await u.hamlet.client.post("/messages/flags", { messages: [999999], op: "add", flag: "starred" }),
      400,
      "Invalid message(s)",
    );
  });

  it("refuses a direct message the user did not receive", async function () {
    await expectRefusedEverywhere(u.cordelia, m.direct!);
    await expectRefusedEverywhere(u.iago, m.direct!);
    expectSuccess(await u.othello.client.get(`/messages/${m.direct}`));
  });

  it("refuses a private channel's message to those without access, administrators included", async function () {
    await expectRefusedEverywhere(u.hamlet, m.secret!);
    await expectRefusedEverywhere(u.iago, m.secret!);
    await expectRefusedEverywhere(u.polonius, m.open!);
  });

  it("refuses protected history from before a subscription, and gives what came after", async function () {
    await expectRefusedEverywhere(u.hamlet, m.vaultBefore!);
    expectSuccess(await u.hamlet.client.get(`/messages/${m.vaultAfter}`));
    // Shared history opens the older message, with a historical row once flagged.
    expectSuccess(await u.hamlet.client.get(`/messages/${m.libraryBefore}`));
    expectSuccess(
      await u.hamlet.client.post("/messages/flags", {
        messages: [m.libraryBefore!],
        op: "add",
        flag: "starred",
      }),
    );
    expect((await flagsByUser(server, m.libraryBefore!)).get(u.hamlet.id)).to.deep.equal([
      "read",
      "starred",
      "historical",
    ]);
  });

  it("lets non-subscribers read public history, but not guests", async function () {
    expectSuccess(await u.cordelia.client.get(`/messages/${m.open}`));
    expectSuccess(await u.cordelia.client.post(`/messages/${m.open}/reactions`, { emoji_name: "smile" }));
    expectSuccess(await u.cordelia.client.delete(`/messages/${m.open}/reactions`, { emoji_name: "smile" }));
    expectError(await u.polonius.client.get(`/messages/${m.open}`), 400, "Invalid message(s)");
  });

  describe("an archived channel with shared history", function () {
    let early: number;
    let late: number;
    let attic: number;

    before(async function () {
      attic = await createChannel(u.othello, "Attic", [u.othello], {
        invite_only: true,
        history_public_to_subscribers: true,
        can_subscribe_group: { direct_members: [u.cordelia.id], direct_subgroups: [] },
      });
      early = await sendToChannel(u.othello, "Attic", "boxes", "before hamlet");
      await subscribe(u.othello, ["Attic"], [u.hamlet]);
      late = await sendToChannel(u.othello, "Attic", "boxes", "after hamlet");
    });

    const channelIds = async (user: TestUser) =>
      (
        expectSuccess(await newest(user, { operator: "channel", operand: attic })).messages as Array<{
          id: number;
        }>
      ).map((x) => x.id);
    const topicLink = async (sender: TestUser) => {
      const id = await sendToChannel(sender, "Verona", "links", "see #**Attic>boxes**");
      return (await messageRow(server, id)).rendered_content;
    };

    it("closes its history to subscribers, as Zulip's can_access_stream_history does", async function () {
      // Open while active: the whole history, and topic links to its newest message.
      expect(await channelIds(u.hamlet)).to.include.members([early, late]);
      expectSuccess(await u.hamlet.client.get(`/messages/${early}`));
      expect(await topicLink(u.cordelia)).to.include(`/with/${late}`);

      expectSuccess(await u.iago.client.delete(`/streams/${attic}`));
      // Archived: only what each subscriber received, everywhere.
      const received = await channelIds(u.hamlet);
      expect(received).to.include(late);
      expect(received).not.to.include(early);
      expectError(await u.hamlet.client.get(`/messages/${early}`), 400, "Invalid message(s)");
      expectSuccess(await u.hamlet.client.get(`/messages/${late}`));
      // A topic link never points at a message its sender could not open.
      expect(await topicLink(u.cordelia)).not.to.include("/with/");
      expect(await topicLink(u.hamlet)).to.include(`/with/${late}`);
    });
  });
});
