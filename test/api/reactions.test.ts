import { expect } from "chai";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestUser } from "../helpers/factories.js";
import { flagsByUser, sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("reactions", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
    await createChannel(u.othello, "Secret", [u.othello, u.hamlet], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  const react = (user: TestUser, id: number, params: Params) =>
    user.client.post(`/messages/${id}/reactions`, params);
  const unreact = (user: TestUser, id: number, params: Params) =>
    user.client.delete(`/messages/${id}/reactions`, params);
  const reactionsOf = async (user: TestUser, id: number) =>
    (expectSuccess(await user.client.get(`/messages/${id}`)).message as { reactions: unknown[] }).reactions;

  it("adds a Unicode emoji by name alone, resolving its code, and removes it", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "r", "react to me");
    expectSuccess(await react(u.othello, id, { emoji_name: "smile" }));
    expect(await reactionsOf(u.hamlet, id)).to.deep.equal([
      {
        emoji_name: "smile",
        emoji_code: "1f604",
        reaction_type: "unicode_emoji",
        user_id: u.othello.id,
      },
    ]);
    expectSuccess(await unreact(u.othello, id, { emoji_name: "smile" }));
    expect(await reactionsOf(u.hamlet, id)).to.deep.equal([]);
  });

  it("refuses a duplicate, an unknown emoji, a wrong code or type, and a missing reaction", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "r", "errors");
    expectSuccess(
      await react(u.othello, id, {
        emoji_name: "smile",
        emoji_code: "1f604",
        reaction_type: "unicode_emoji",
      }),
    );
    expectError(
      await react(u.othello, id, { emoji_name: "smile" }),
      400,
      "Reaction already exists.",
      "REACTION_ALREADY_EXISTS",
    );
    expectError(
      await react(u.othello, id, { emoji_name: "no_such_emoji" }),
      400,
      "Emoji 'no_such_emoji' does not exist",
    );
    // Validity is checked for a new reaction (others' reactions are joined as they are).
    expectError(
      await react(u.hamlet, id, { emoji_name: "smile", emoji_code: "zzzz", reaction_type: "unicode_emoji" }),
      400,
      "Invalid emoji code.",
    );
    expectError(
      await react(u.hamlet, id, {
        emoji_name: "heart",
        emoji_code: "1f600",
        reaction_type: "unicode_emoji",
      }),
      400,
      "Invalid emoji name.",
    );
    expectError(
      await react(u.othello, id, { emoji_name: "smile", emoji_code: "1f604", reaction_type: "bogus" }),
      400,
      "Invalid emoji type.",
    );
    expectError(
      await unreact(u.othello, id, { emoji_name: "heart" }),
      400,
      "Reaction doesn't exist.",
      "REACTION_DOES_NOT_EXIST",
    );
    expectError(
      await unreact(u.othello, id, {}),
      400,
      "At least one of the following arguments must be present: emoji_name, emoji_code",
    );
    expect(await reactionsOf(u.hamlet, id)).to.have.lengthOf(1);
  });

  it("refuses removing with an invalid emoji code (BAD_REQUEST), but removes an existing reaction whatever its code", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "r", "invalid codes");
    expectSuccess(await react(u.othello, id, { emoji_name: "smile" }));
    for (const [emoji_code, reaction_type, msg] of [
      ["zzzz", "unicode_emoji", "Invalid emoji code."],
      ["nope", "zulip_extra_emoji", "Invalid emoji code."],
      ["999999", "realm_emoji", "Invalid custom emoji."],
      ["not-an-id", "realm_emoji", "Invalid custom emoji."],
    ] as const) {
      expectError(await unreact(u.othello, id, { emoji_code, reaction_type }), 400, msg, "BAD_REQUEST");
    }
    // A valid code the user has not reacted with is a missing reaction.
    expectError(
      await unreact(u.othello, id, { emoji_code: "2764", reaction_type: "unicode_emoji" }),
      400,
      "Reaction doesn't exist.",
      "REACTION_DOES_NOT_EXIST",
    );
    expect(await reactionsOf(u.hamlet, id)).to.have.lengthOf(1);
    // A stored reaction whose code the emoji table no longer knows can still be removed.
    await server.app.knex("reactions").insert({
      message_id: id,
      user_id: u.hamlet.id,
      emoji_name: "retired",
      emoji_code: "fffff",
      reaction_type: "unicode_emoji",
    });
    expectSuccess(await unreact(u.hamlet, id, { emoji_code: "fffff", reaction_type: "unicode_emoji" }));
    expectSuccess(await unreact(u.othello, id, { emoji_code: "1f604" }));
    expect(await reactionsOf(u.hamlet, id)).to.deep.equal([]);
  });

  it("keeps the three types' code namespaces apart, and accepts service_extra_emoji for zulip_extra_emoji", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "r", "namespaces");
    expectSuccess(
      await react(u.othello, id, {
        emoji_name: "zulip",
        emoji_code: "zulip",
        reaction_type: "service_extra_emoji",
      }),
    );
    expectSuccess(await react(u.hamlet, id, { emoji_name: "zulip" }));
    const reactions = (await reactionsOf(u.hamlet, id)) as Array<{ reaction_type: string }>;
    expect(reactions.map((r) => r.reaction_type)).to.deep.equal(["zulip_extra_emoji", "zulip_extra_emoji"]);
    expectError(
      await react(u.othello, id, { emoji_name: "zulip" }),
      400,
      "Reaction already exists.",
      "REACTION_ALREADY_EXISTS",
    );
    expectError(
      await react(u.othello, id, {
        emoji_name: "zulip",
        emoji_code: "zulip",
        reaction_type: "unicode_emoji",
      }),
      400,
      "Invalid emoji code.",
    );
  });

  it("lets users join a reaction, and keeps its name", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "r", "vote");
    expectSuccess(await react(u.othello, id, { emoji_name: "thumbs_up" }));
    expectSuccess(await react(u.hamlet, id, { emoji_name: "+1" }));
    const names = ((await reactionsOf(u.hamlet, id)) as Array<{ emoji_name: string }>).map(
      (r) => r.emoji_name,
    );
    expect(names).to.deep.equal(["thumbs_up", "thumbs_up"]);
  });

  it("works only on messages the user may read; a reaction to a public channel's history makes it historical", async function () {
    const secret = await sendToChannel(u.othello, "Secret", "r", "hush");
    expectError(await react(u.cordelia, secret, { emoji_name: "smile" }), 400, "Invalid message(s)");
    const dm = await sendDirect(u.hamlet, [u.othello], "private");
    expectError(await react(u.iago, dm, { emoji_name: "smile" }), 400, "Invalid message(s)");
    expectError(await react(u.iago, 999999, { emoji_name: "smile" }), 400, "Invalid message(s)");
    expect(await reactionsOf(u.hamlet, secret)).to.deep.equal([]);
    const old = await sendToChannel(u.hamlet, "Denmark", "r", "public history");
    expectSuccess(await react(u.cordelia, old, { emoji_name: "smile" }));
    expect((await flagsByUser(server, old)).get(u.cordelia.id)).to.deep.equal(["read", "historical"]);
  });

  it("sends reaction events to those who can see the message, and nobody else", async function () {
    const id = await sendToChannel(u.othello, "Secret", "r", "events");
    const queues = new Map<number, string>();
    for (const user of [u.hamlet, u.othello, u.cordelia, u.iago])
      queues.set(user.id, (await register(user.client, { event_types: ["reaction"] })).queue_id as string);
    expectSuccess(await react(u.hamlet, id, { emoji_name: "smile" }));
    expectSuccess(await unreact(u.hamlet, id, { emoji_name: "smile" }));
    for (const user of [u.hamlet, u.othello, u.cordelia, u.iago]) {
      const events = await pendingEvents(user.client, queues.get(user.id)!);
      const ops = events.filter((e) => e.type === "reaction").map((e) => e.op as string);
      expect(ops, user.email).to.deep.equal(user === u.cordelia || user === u.iago ? [] : ["add", "remove"]);
      if (ops.length > 0) {
        expect(events.find((e) => e.type === "reaction")).to.deep.include({
          user_id: u.hamlet.id,
          user: { user_id: u.hamlet.id, email: u.hamlet.email, full_name: u.hamlet.fullName },
          message_id: id,
          emoji_name: "smile",
          emoji_code: "1f604",
          reaction_type: "unicode_emoji",
        });
      }
    }
  });

  it("register plus reaction events equals a fresh register", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "r", "parity");
    await verifyRegisterParity(u.othello.client, {}, async () => {
      expectSuccess(await react(u.hamlet, id, { emoji_name: "smile" }));
      expectSuccess(await unreact(u.hamlet, id, { emoji_name: "smile" }));
    });
  });
});
