import { createHash } from "node:crypto";
import { expect } from "chai";
import { createBot } from "../helpers/bots.js";
import { createChannel } from "../helpers/channels.js";
import { expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const gravatar = (email: string) =>
  `https://secure.gravatar.com/avatar/${createHash("md5").update(email).digest("hex")}?d=identicon&version=1`;

describe("bots: register's realm_bots and realm_bot events", function () {
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
  const ops = (events: Array<Record<string, unknown>>, type: string) =>
    events.filter((e) => e.type === type).map((e) => e.op);

  it("lists every bot for administrators (deactivated ones too), and one's own for others", async function () {
    const { u } = await fresh();
    await createChannel(u("iago"), "castle", [u("iago")]);
    const hook = await createBot(u("hamlet"), "hook", {
      bot_type: 3,
      payload_url: JSON.stringify("https://hooks.example.com/in"),
      interface_type: 2,
      default_sending_stream: "castle",
    });
    const gone = await createBot(u("hamlet"), "gone");
    const theirs = await createBot(u("othello"), "theirs");
    expectSuccess(await u("hamlet").client.delete(`/bots/${gone.id}`));

    const admin = await register(u("iago").client, { fetch_event_types: ["realm_bot"] });
    expect(admin).to.have.property("realm_bots");
    expect(admin).not.to.have.property("realm_users");
    const bots = admin.realm_bots as Array<Record<string, unknown>>;
    expect(bots.map((b) => b.user_id)).to.deep.equal([hook.id, gone.id, theirs.id]);
    const service = await server.app
      .knex("bot_services")
      .where({ bot_user_id: hook.id })
      .first<{ token: string } | undefined>();
    const token = service!.token;
    expect(bots[0]).to.deep.equal({
      email: hook.email,
      user_id: hook.id,
      full_name: "hook bot",
      bot_type: 3,
      is_active: true,
      api_key: "",
      default_sending_stream: "castle",
      default_events_register_stream: null,
      default_all_public_streams: false,
      owner_id: u("hamlet").id,
      avatar_url: gravatar(hook.email),
      services: [{ base_url: "https://hooks.example.com/in", interface: 2, token }],
    });
    expect(bots[1]).to.include({ user_id: gone.id, is_active: false });

    const owner = await register(u("hamlet").client, { fetch_event_types: ["realm_bot"] });
    expect((owner.realm_bots as Array<{ user_id: number }>).map((b) => b.user_id)).to.deep.equal([
      hook.id,
      gone.id,
    ]);
    const member = await register(u("cordelia").client, { fetch_event_types: ["realm_bot"] });
    expect(member.realm_bots).to.deep.equal([]);
  });

  it("a new bot: realm_user and group events for everyone, realm_bot add for its administrators", async function () {
    const { u } = await fresh();
    const othello = await register(u("othello").client);
    const iago = await register(u("iago").client, { event_types: ["realm_bot"] });
    const bot = await createBot(u("hamlet"), "fool");
    const seen = await pendingEvents(u("othello").client, othello.queue_id as string);
    expect(seen.map((e) => `${e.type}/${e.op as string}`)).to.deep.equal([
      "realm_user/add",
      "user_group/add_members",
      "user_group/add_members",
    ]);
    expect(seen[0]!.person).to.include({
      user_id: bot.id,
      email: bot.email,
      is_bot: true,
      bot_type: 1,
      bot_owner_id: u("hamlet").id,
    });
    expect(seen[0]!.person).not.to.have.property("profile_data");
    const admin = await pendingEvents(u("iago").client, iago.queue_id as string);
    expect(admin).to.have.length(1);
    expect(admin[0]).to.deep.include({
      type: "realm_bot",
      op: "add",
      bot: {
        email: bot.email,
        user_id: bot.id,
        full_name: "fool bot",
        bot_type: 1,
        is_active: true,
        api_key: "",
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
        avatar_url: gravatar(bot.email),
        services: [],
        owner_id: u("hamlet").id,
      },
    });
  });

  const lifecycle = async (u: (name: string) => TestUser) => {
    const bot = await createBot(u("hamlet"), "fool");
    const hamlet = u("hamlet").client;
    expectSuccess(await hamlet.patch(`/bots/${bot.id}`, { full_name: "Yorick" }));
    expectSuccess(await hamlet.patch(`/bots/${bot.id}`, { default_sending_stream: "castle" }));
    expectSuccess(await hamlet.patch(`/bots/${bot.id}`, { default_events_register_stream: "castle" }));
    expectSuccess(await hamlet.patch(`/bots/${bot.id}`, { default_all_public_streams: true }));
    expectSuccess(await hamlet.post(`/bots/${bot.id}/api_key/regenerate`));
    expectSuccess(await hamlet.delete(`/bots/${bot.id}`));
    expectSuccess(await hamlet.post(`/users/${bot.id}/reactivate`));
    const hook = await createBot(u("hamlet"), "hook", {
      bot_type: 3,
      payload_url: JSON.stringify("http://a.example.com"),
    });
    expectSuccess(
      await hamlet.patch(`/bots/${hook.id}`, {
        service_payload_url: JSON.stringify("http://b.example.com"),
        service_interface: 2,
      }),
    );
  };

  for (const viewer of ["hamlet", "iago", "othello"]) {
    it(`register state plus events equals a fresh register through a bot's life (${viewer})`, async function () {
      const { u } = await fresh();
      await createChannel(u("iago"), "castle", [u("iago")]);
      const events = await verifyRegisterParity(u(viewer).client, {}, () => lifecycle(u));
      const botOps = ops(events, "realm_bot");
      if (viewer === "othello") expect(botOps).to.deep.equal([]);
      else {
        expect(botOps).to.deep.equal([
          "add",
          "update", // full_name
          "update", // default_sending_stream
          "update", // default_events_register_stream
          "update", // default_all_public_streams
          "update", // is_active false
          "update", // is_active true
          "add",
          "update", // services
        ]);
      }
      expect(ops(events, "realm_user")).to.deep.include.members(["add", "update"]);
    });
  }

  for (const viewer of ["hamlet", "othello", "iago", "cordelia"]) {
    it(`an owner change: delete for the old owner, add for the new, update for the rest (${viewer})`, async function () {
      const { u } = await fresh();
      const bot = await createBot(u("hamlet"), "fool");
      await createBot(u("othello"), "mine"); // the new owner's own bot, created later
      const events = await verifyRegisterParity(u(viewer).client, {}, async () => {
        expectSuccess(await u("hamlet").client.patch(`/bots/${bot.id}`, { bot_owner_id: u("othello").id }));
      });
      const expected: Record<string, unknown[]> = {
        hamlet: [{ type: "realm_bot", op: "delete", bot: { user_id: bot.id } }],
        othello: [{ type: "realm_bot", op: "add" }],
        iago: [{ type: "realm_bot", op: "update", bot: { user_id: bot.id, owner_id: u("othello").id } }],
        cordelia: [],
      };
      const botEvents = events.filter((e) => e.type === "realm_bot");
      expect(botEvents.length).to.equal(expected[viewer]!.length);
      for (const [i, want] of expected[viewer]!.entries()) expect(botEvents[i]).to.deep.include(want);
      expect(events.filter((e) => e.type === "realm_user").map((e): unknown => e.person)).to.deep.equal([
        { user_id: bot.id, bot_owner_id: u("othello").id },
      ]);
    });
  }

  it("deactivating the owner deactivates the bot for its administrators too", async function () {
    const { u } = await fresh();
    const bot = await createBot(u("hamlet"), "fool");
    const events = await verifyRegisterParity(u("iago").client, {}, async () => {
      expectSuccess(await u("desdemona").client.delete(`/users/${u("hamlet").id}`));
    });
    expect(events.filter((e) => e.type === "realm_bot").map((e): unknown[] => [e.op, e.bot])).to.deep.equal([
      ["update", { user_id: bot.id, is_active: false }],
    ]);
    // Reactivated by an administrator, the bot becomes theirs.
    const more = await verifyRegisterParity(u("iago").client, {}, async () => {
      expectSuccess(await u("iago").client.post(`/users/${bot.id}/reactivate`));
    });
    expect(more.filter((e) => e.type === "realm_bot").map((e): unknown => e.bot)).to.deep.equal([
      { user_id: bot.id, is_active: true },
      { user_id: bot.id, owner_id: u("iago").id },
    ]);
  });

  it("a bot with a private default channel is its owner's business only", async function () {
    const { u } = await fresh();
    await createChannel(u("hamlet"), "den", [u("hamlet")], { invite_only: true });
    const iago = await register(u("iago").client, { event_types: ["realm_bot"] });
    const hamlet = await register(u("hamlet").client, { event_types: ["realm_bot"] });
    const bot = await createBot(u("hamlet"), "fool", { default_sending_stream: "den" });
    expectSuccess(await u("hamlet").client.patch(`/bots/${bot.id}`, { full_name: "Yorick" }));
    expect(await pendingEvents(u("iago").client, iago.queue_id as string)).to.deep.equal([]);
    expect(
      ops(await pendingEvents(u("hamlet").client, hamlet.queue_id as string), "realm_bot"),
    ).to.deep.equal(["add", "update"]);
  });
});
