import { expect } from "chai";
import type { UserRow } from "../../src/db/rows.js";
import { createBot, type TestBot } from "../helpers/bots.js";
import { createChannel, subscribe, subscriberIds } from "../helpers/channels.js";
import { Client, expectError, expectSuccess } from "../helpers/client.js";
import { register, verifyRegisterParity } from "../helpers/events.js";
import type { Event } from "../helpers/apply-events.js";
import type { TestUser } from "../helpers/factories.js";
import { sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * A bot that passes to a new owner (PATCH /bots/{id} bot_owner_id, or reactivation by
 * someone else when its owner is deactivated) leaves the private channels its new owner
 * may not read, and forgets default channels its new owner may not see: the new owner
 * can take the bot's key, so whatever the bot reads, they read.
 */
describe("bots: a new owner gets no access through the bot", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm = await server.factory.realm();
    return { realm, u: (name: string) => realm.users[name]! };
  };
  const row = async (id: number) => (await server.app.knex<UserRow>("users").where({ id }).first())!;
  const give = async (by: TestUser, bot: TestBot, owner: TestUser): Promise<void> => {
    expectSuccess(await by.client.patch(`/bots/${bot.id}`, { bot_owner_id: owner.id }));
  };
  /** The bot's key as its new owner gets it: a regenerated one. */
  const takeKey = async (owner: TestUser, bot: TestBot) => {
    const body = expectSuccess(await owner.client.post(`/bots/${bot.id}/api_key/regenerate`));
    return new Client(server.url, { email: bot.email, apiKey: body.api_key as string });
  };
  const narrowIds = async (client: Client, channel: string) => {
    const res = await client.get("/messages", {
      narrow: JSON.stringify([["channel", channel]]),
      anchor: "newest",
      num_before: 50,
      num_after: 0,
    });
    return (expectSuccess(res).messages as Array<{ id: number }>).map((m) => m.id);
  };
  const principal = (bot: TestBot) => ({ id: bot.id }) as TestUser;
  /** hamlet's bot, in hamlet's private `secret` (othello is not in it) and public `square`. */
  const setup = async (u: (name: string) => TestUser, botParams = {}) => {
    const secret = await createChannel(u("hamlet"), "secret", [u("hamlet")], { invite_only: true });
    const square = await createChannel(u("hamlet"), "square", [u("hamlet")]);
    const bot = await createBot(u("hamlet"), "xfer", botParams);
    await subscribe(u("hamlet"), ["secret", "square"], [principal(bot)]);
    expect(await subscriberIds(server, secret)).to.deep.equal([u("hamlet").id, bot.id]);
    return { secret, square, bot };
  };

  it("the issue's reproduction: given to a member outside `secret`, the bot can no longer read, post or list it", async function () {
    const { u } = await fresh();
    const { secret, square, bot } = await setup(u);
    const before = await sendToChannel(u("hamlet"), "secret", "plans", "before the handover");
    expect(await narrowIds(bot.client, "secret")).to.deep.equal([before]);

    await give(u("hamlet"), bot, u("othello"));
    expect(await subscriberIds(server, secret)).to.deep.equal([u("hamlet").id]);
    expect(await subscriberIds(server, square)).to.deep.equal([u("hamlet").id, bot.id]);

    const client = await takeKey(u("othello"), bot);
    await sendToChannel(u("hamlet"), "secret", "plans", "after the handover");
    // What it received before stays readable (as in Zulip); nothing later reaches it.
    expect(await narrowIds(client, "secret")).to.deep.equal([before]);
    expectError(
      await client.post("/messages", { type: "stream", to: "secret", topic: "plans", content: "hi" }),
      400,
      "Not authorized to send to channel 'secret'",
    );
    expectError(await client.get(`/streams/${secret}/members`), 400, "Invalid channel ID");
    const own = expectSuccess(await client.get("/users/me/subscriptions")).subscriptions as Array<{
      name: string;
    }>;
    expect(own.map((s) => s.name)).to.deep.equal(["square"]);
    // The public channel stays: the bot reads it anyway.
    const open = await sendToChannel(u("hamlet"), "square", "news", "for everyone");
    expect(await narrowIds(client, "square")).to.include(open);
  });

  it("keeps the private channels its new owner reads, and changes nothing when the owner reads them all", async function () {
    const { u } = await fresh();
    const { secret, bot } = await setup(u);
    const shared = await createChannel(u("hamlet"), "shared", [u("hamlet"), u("othello")], {
      invite_only: true,
    });
    await subscribe(u("hamlet"), ["shared"], [principal(bot)]);
    await give(u("hamlet"), bot, u("othello"));
    expect(await subscriberIds(server, shared)).to.deep.equal([u("hamlet").id, u("othello").id, bot.id]);
    expect(await subscriberIds(server, secret)).to.deep.equal([u("hamlet").id]);
    // Back to hamlet, who reads both: no subscription changes at all.
    const events = await verifyRegisterParity(bot.client, {}, async () => {
      await give(u("othello"), bot, u("hamlet"));
    });
    expect(events.filter((e) => e.type === "subscription" || e.type === "stream")).to.deep.equal([]);
    expect(await subscriberIds(server, shared)).to.deep.equal([u("hamlet").id, u("othello").id, bot.id]);
  });

  it("a guest as the new owner: the bot keeps only the private channels the guest is in", async function () {
    const { u } = await fresh();
    const { secret, bot } = await setup(u, { default_sending_stream: "square" });
    const porch = await createChannel(u("hamlet"), "porch", [u("hamlet"), u("polonius")], {
      invite_only: true,
    });
    await subscribe(u("hamlet"), ["porch"], [principal(bot)]);
    // An administrator hands the bot over.
    await give(u("iago"), bot, u("polonius"));
    expect(await row(bot.id)).to.include({ bot_owner_id: u("polonius").id });
    expect(await subscriberIds(server, secret)).to.deep.equal([u("hamlet").id]);
    expect(await subscriberIds(server, porch)).to.deep.equal([u("hamlet").id, u("polonius").id, bot.id]);
    // A guest does not see a public channel it is not in: the default goes too.
    const state = await register(u("polonius").client, { fetch_event_types: ["realm_bot"] });
    expect(state.realm_bots).to.have.length(1);
    expect((state.realm_bots as unknown[])[0]).to.include({ user_id: bot.id, default_sending_stream: null });
    const later = await sendToChannel(u("hamlet"), "secret", "plans", "not for guests");
    expect(await narrowIds(bot.client, "secret")).not.to.include(later);
  });

  it("clears default channels the new owner may not see, before the new owner hears of the bot", async function () {
    const { u } = await fresh();
    const { bot } = await setup(u, { default_sending_stream: "secret" });
    expectSuccess(
      await u("hamlet").client.patch(`/bots/${bot.id}`, { default_events_register_stream: "secret" }),
    );
    const events = await verifyRegisterParity(u("othello").client, {}, async () => {
      await give(u("hamlet"), bot, u("othello"));
    });
    expect(JSON.stringify(events)).not.to.contain("secret");
    const added = events.filter((e) => e.type === "realm_bot");
    expect(added).to.have.length(1);
    expect(added[0]).to.deep.include({ op: "add" });
    expect(added[0]!.bot).to.include({
      user_id: bot.id,
      owner_id: u("othello").id,
      default_sending_stream: null,
      default_events_register_stream: null,
    });
    expect(await row(bot.id)).to.include({
      default_sending_stream_id: null,
      default_events_register_stream_id: null,
    });
    const listed = expectSuccess(await u("othello").client.get("/bots")).bots as Array<
      Record<string, unknown>
    >;
    expect(listed[0]).to.include({ default_sending_stream: null, default_events_register_stream: null });
    // A default channel the new owner sees stays.
    expectSuccess(await u("othello").client.patch(`/bots/${bot.id}`, { default_sending_stream: "square" }));
    await give(u("othello"), bot, u("cordelia"));
    expect((await row(bot.id)).default_sending_stream_id).to.not.equal(null);
  });

  const realmBot = (events: Event[]) =>
    events.filter((e) => e.type === "realm_bot").map((e) => [e.op, e.bot] as unknown[]);
  const channelEvents = (events: Event[]) =>
    events
      .filter((e) => e.type === "subscription" || e.type === "stream")
      .map(({ id: _id, ...rest }) => rest as Record<string, unknown>);

  for (const viewer of ["hamlet", "othello", "iago", "bot"]) {
    it(`events: register state plus events equals a fresh register (${viewer})`, async function () {
      const { u } = await fresh();
      const { secret, bot } = await setup(u, { default_sending_stream: "secret" });
      const client = viewer === "bot" ? bot.client : u(viewer).client;
      const events = await verifyRegisterParity(client, { include_subscribers: true }, async () => {
        await give(u("hamlet"), bot, u("othello"));
      });
      const cleared = { user_id: bot.id, default_sending_stream: null };
      if (viewer === "hamlet") {
        // The old owner: the cleared default, then the bot leaves their list; as a
        // subscriber of secret, the bot leaves its subscribers.
        expect(realmBot(events)).to.deep.equal([
          ["update", cleared],
          ["delete", { user_id: bot.id }],
        ]);
        expect(channelEvents(events)).to.deep.equal([
          { type: "subscription", op: "peer_remove", stream_ids: [secret], user_ids: [bot.id] },
        ]);
      } else if (viewer === "othello") {
        expect(realmBot(events).map(([op]) => op)).to.deep.equal(["add"]);
        expect(channelEvents(events)).to.deep.equal([]);
      } else if (viewer === "iago") {
        // An administrator: the default was private (no events); now it is cleared.
        expect(realmBot(events)).to.deep.equal([
          ["update", cleared],
          ["update", { user_id: bot.id, owner_id: u("othello").id }],
        ]);
        expect(channelEvents(events)).to.deep.equal([
          { type: "subscription", op: "peer_remove", stream_ids: [secret], user_ids: [bot.id] },
        ]);
      } else {
        expect(channelEvents(events)).to.deep.equal([
          { type: "subscription", op: "remove", subscriptions: [{ name: "secret", stream_id: secret }] },
          { type: "stream", op: "delete", streams: [{ stream_id: secret }], stream_ids: [secret] },
        ]);
      }
      expect(events.filter((e) => e.type === "realm_user").map((e): unknown => e.person)).to.deep.equal([
        { user_id: bot.id, bot_owner_id: u("othello").id },
      ]);
    });
  }

  it("reactivated by an administrator outside `secret` when its owner is deactivated, the bot leaves it", async function () {
    const { u } = await fresh();
    const { secret, square, bot } = await setup(u, { default_sending_stream: "secret" });
    await subscribe(u("hamlet"), ["secret"], [u("othello")]);
    expectSuccess(await u("iago").client.delete(`/users/${u("hamlet").id}`));
    expect((await row(bot.id)).is_active).to.equal(0);
    const events = await verifyRegisterParity(
      u("othello").client,
      { include_subscribers: true },
      async () => {
        expectSuccess(await u("iago").client.post(`/users/${bot.id}/reactivate`));
      },
    );
    // An administrator sees every channel's name: the default stays.
    expect(await row(bot.id)).to.include({
      is_active: 1,
      bot_owner_id: u("iago").id,
      default_sending_stream_id: secret,
    });
    expect(await subscriberIds(server, secret)).to.deep.equal([u("hamlet").id, u("othello").id]);
    expect(await subscriberIds(server, square)).to.deep.equal([u("hamlet").id, bot.id]);
    // othello, in secret, sees the bot come back and leave it again.
    expect(channelEvents(events).filter((e) => (e.stream_ids as number[]).includes(secret))).to.deep.equal([
      { type: "subscription", op: "peer_add", stream_ids: [secret], user_ids: [bot.id] },
      { type: "subscription", op: "peer_remove", stream_ids: [secret], user_ids: [bot.id] },
    ]);
    await verifyRegisterParity(u("iago").client, { include_subscribers: true }, async () => {
      expectSuccess(await u("iago").client.delete(`/bots/${bot.id}`));
      expectSuccess(await u("iago").client.post(`/users/${bot.id}/reactivate`));
    });
    const client = await takeKey(u("iago"), bot);
    const later = await sendToChannel(u("othello"), "secret", "plans", "after the reactivation");
    expect(await narrowIds(client, "secret")).not.to.include(later);
  });
});
