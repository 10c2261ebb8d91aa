import { expect } from "chai";
import type { BotServiceRow, UserRow } from "../../src/db/rows.js";
import { createBot, type TestBot } from "../helpers/bots.js";
import { createChannel } from "../helpers/channels.js";
import { Client, expectError, expectSuccess, type Params } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { setRealmGroupSetting, systemGroupId } from "../helpers/user-groups.js";

describe("bots: PATCH, DELETE, reactivation and API keys", function () {
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
  const service = async (bot: TestBot) =>
    (await server.app.knex<BotServiceRow>("bot_services").where({ bot_user_id: bot.id }).first())!;
  const config = async (bot: TestBot) =>
    Object.fromEntries(
      (await server.app.knex("bot_config_data").where({ bot_user_id: bot.id }).select("key", "value")).map(
        (r: { key: string; value: string }) => [r.key, r.value],
      ),
    );

  it("changes name, owner and defaults, and answers as Zulip does", async function () {
    const { u } = await fresh();
    await createChannel(u("iago"), "castle", [u("iago")]);
    const bot = await createBot(u("hamlet"), "fool");
    const body = expectSuccess(
      await u("hamlet").client.patch(`/bots/${bot.id}`, {
        full_name: "  Yorick  ",
        default_sending_stream: "castle",
        default_events_register_stream: "castle",
        default_all_public_streams: true,
      }),
    );
    expect(body).to.deep.include({
      full_name: "Yorick",
      service_interface: 1,
      service_payload_url: null,
      config_data: null,
      default_sending_stream: "castle",
      default_events_register_stream: "castle",
      default_all_public_streams: true,
      bot_owner: "hamlet@zulip.test",
    });
    expect(await row(bot.id)).to.include({ full_name: "Yorick", default_all_public_streams: 1 });
    // "" clears a default channel.
    const cleared = expectSuccess(
      await u("hamlet").client.patch(`/bots/${bot.id}`, { default_sending_stream: "" }),
    );
    expect(cleared.default_sending_stream).to.equal(null);
    // A new owner: the bot moves to their GET /bots.
    const moved = expectSuccess(
      await u("hamlet").client.patch(`/bots/${bot.id}`, { bot_owner_id: u("othello").id }),
    );
    expect(moved.bot_owner).to.equal("othello@zulip.test");
    expect(expectSuccess(await u("hamlet").client.get("/bots")).bots).to.deep.equal([]);
    expect((expectSuccess(await u("othello").client.get("/bots")).bots as unknown[]).length).to.equal(1);
    // The previous owner no longer administers it.
    expectError(
      await u("hamlet").client.patch(`/bots/${bot.id}`, { full_name: "Mine" }),
      400,
      "Insufficient permission",
    );
  });

  it("refuses bad changes with Zulip's messages, changing nothing", async function () {
    const { u } = await fresh();
    await createChannel(u("iago"), "secret", [u("iago")], { invite_only: true });
    const bot = await createBot(u("hamlet"), "fool");
    const other = await createBot(u("hamlet"), "jester");
    const before = await row(bot.id);
    const hamlet = u("hamlet").client;
    const expectRefused = async (params: Params, msg: string, code = "BAD_REQUEST") => {
      expectError(await hamlet.patch(`/bots/${bot.id}`, params), 400, msg, code);
      expect(await row(bot.id)).to.deep.equal(before);
    };
    await expectRefused({ full_name: "" }, "Name must not be empty!");
    await expectRefused({ full_name: "jester bot" }, "Name is already in use.");
    await expectRefused({ full_name: "Othello Dane" }, "Name is already in use.");
    await expectRefused({ bot_owner_id: 999999 }, "Failed to change owner, no such user");
    await expectRefused({ bot_owner_id: other.id }, "Failed to change owner, bots can't own other bots");
    expectSuccess(await u("iago").client.delete(`/users/${u("cordelia").id}`));
    await expectRefused({ bot_owner_id: u("cordelia").id }, "Failed to change owner, user is deactivated");
    await expectRefused({ default_sending_stream: "secret" }, "Invalid channel name 'secret'");
    await expectRefused({ default_events_register_stream: "nowhere" }, "Invalid channel name 'nowhere'");
    await expectRefused(
      { default_all_public_streams: "maybe" },
      "default_all_public_streams is not a boolean",
    );
    await expectRefused({ role: 200 }, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    await expectRefused({ role: 100 }, "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    await expectRefused(
      { service_payload_url: JSON.stringify("http://a.example.com") },
      "This bot has no outgoing webhook service.",
    );
    await expectRefused(
      { service_payload_url: JSON.stringify("gopher://a.example.com") },
      "Invalid service_payload_url: Value error, Not a URL",
    );
    // All or nothing: a valid change before a refused one is not kept.
    await expectRefused(
      { full_name: "Renamed", default_sending_stream: "secret" },
      "Invalid channel name 'secret'",
    );
  });

  it("points an outgoing webhook at a new URL and format; stores configuration", async function () {
    const { u } = await fresh();
    const hook = await createBot(u("hamlet"), "hook", {
      bot_type: 3,
      payload_url: JSON.stringify("http://a.example.com"),
    });
    const body = expectSuccess(
      await u("hamlet").client.patch(`/bots/${hook.id}`, {
        service_payload_url: JSON.stringify("https://b.example.com/hook"),
        service_interface: 2,
      }),
    );
    expect(body).to.include({ service_payload_url: "https://b.example.com/hook", service_interface: 2 });
    expect(await service(hook)).to.include({ base_url: "https://b.example.com/hook", interface: 2 });
    // As in Zulip, the interface defaults to 1 when only the URL is given.
    expectSuccess(
      await u("hamlet").client.patch(`/bots/${hook.id}`, {
        service_payload_url: JSON.stringify("https://c.example.com"),
      }),
    );
    expect(await service(hook)).to.include({ base_url: "https://c.example.com", interface: 1 });
    expectError(
      await u("hamlet").client.patch(`/bots/${hook.id}`, {
        service_payload_url: JSON.stringify("https://d.example.com"),
        service_interface: 7,
      }),
      400,
      "Invalid interface type",
    );
    expect(await service(hook)).to.include({ base_url: "https://c.example.com" });

    const feed = await createBot(u("hamlet"), "feed", {
      bot_type: 2,
      config_data: JSON.stringify({ room: "ops" }),
    });
    expect(await config(feed)).to.deep.equal({ room: "ops" });
    const patched = expectSuccess(
      await u("hamlet").client.patch(`/bots/${feed.id}`, {
        config_data: JSON.stringify({ room: "dev", level: "3" }),
      }),
    );
    expect(patched.config_data).to.deep.equal({ room: "dev", level: "3" });
    expect(await config(feed)).to.deep.equal({ level: "3", room: "dev" });
    expectError(
      await u("hamlet").client.patch(`/bots/${feed.id}`, {
        config_data: JSON.stringify({ big: "x".repeat(10_000) }),
      }),
      400,
      "Cannot store configuration. Request would require 10016 characters. The current configuration size limit is 10000 characters.",
    );
    expect(await config(feed)).to.deep.equal({ level: "3", room: "dev" });
    // Checked after each entry in turn, as Zulip's set_bot_config: a later entry that
    // shrinks the total does not save an earlier one that went over.
    expectError(
      await u("hamlet").client.patch(`/bots/${feed.id}`, {
        config_data: JSON.stringify({ level: "y".repeat(9_990), room: "" }),
      }),
      400,
      "Cannot store configuration. Request would require 10002 characters. The current configuration size limit is 10000 characters.",
    );
    expect(await config(feed)).to.deep.equal({ level: "3", room: "dev" });
  });

  it("is for the bot's owner and administrators only", async function () {
    const { realm, u } = await fresh();
    const bot = await createBot(u("hamlet"), "fool");
    const before = await row(bot.id);
    for (const [caller, msg] of [
      ["othello", "Insufficient permission"],
      ["prospero", "Insufficient permission"],
      ["polonius", "Not allowed for guest users"],
    ] as const) {
      expectError(await u(caller).client.patch(`/bots/${bot.id}`, { full_name: "Mine" }), 400, msg);
      expectError(await u(caller).client.post(`/bots/${bot.id}/api_key/regenerate`), 400, msg);
    }
    for (const caller of ["othello", "prospero", "polonius"]) {
      expectError(await u(caller).client.delete(`/bots/${bot.id}`), 400, "Insufficient permission");
    }
    expectError(
      await bot.client.patch(`/bots/${bot.id}`, { full_name: "Me" }),
      400,
      "This endpoint does not accept bot requests.",
    );
    expect(await row(bot.id)).to.deep.equal(before);
    expectSuccess(await bot.client.get("/users/me"));
    // Missing bots, people and malformed IDs.
    for (const path of ["/bots/999999", `/bots/${u("othello").id}`]) {
      expectError(await u("iago").client.patch(path, { full_name: "X" }), 400, "No such bot");
      expectError(await u("iago").client.delete(path), 400, "No such bot");
      expectError(await u("iago").client.post(`${path}/api_key/regenerate`), 400, "No such bot");
    }
    expectError(await u("iago").client.delete("/bots/fool"), 400, "Invalid bot_id");
    // Administrators may; a bot that may create users needs an owner.
    expectSuccess(await u("iago").client.patch(`/bots/${bot.id}`, { full_name: "Renamed by Iago" }));
    await server.app.db.transaction(async (tx) => {
      await tx.knex("users").where({ id: bot.id }).update({ can_create_users: true });
      tx.afterCommit(() => server.app.realms.invalidate(realm.id));
    });
    expectError(
      await u("iago").client.patch(`/bots/${bot.id}`, { full_name: "Again" }),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(
      await u("hamlet").client.delete(`/bots/${bot.id}`),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectSuccess(await u("desdemona").client.patch(`/bots/${bot.id}`, { full_name: "Again" }));
  });

  it("administrators change a bot's role", async function () {
    const { u } = await fresh();
    const bot = await createBot(u("hamlet"), "fool");
    expectSuccess(await u("iago").client.patch(`/bots/${bot.id}`, { role: 300 }));
    expect((await row(bot.id)).role).to.equal(300);
    expectError(
      await u("iago").client.patch(`/bots/${bot.id}`, { role: 100 }),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectSuccess(await u("desdemona").client.patch(`/bots/${bot.id}`, { role: 100 }));
    expect((await row(bot.id)).role).to.equal(100);
  });

  it("a bot's owner who is not an administrator may not change its role", async function () {
    const { u } = await fresh();
    const bot = await createBot(u("hamlet"), "fool");
    expectError(
      await u("hamlet").client.patch(`/bots/${bot.id}`, { role: 300 }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expect((await row(bot.id)).role).to.equal(400);
    // The owner role needs an organization owner, whatever else the caller is.
    expectError(
      await u("hamlet").client.patch(`/bots/${bot.id}`, { role: 100 }),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expect((await row(bot.id)).role).to.equal(400);
  });

  it("DELETE deactivates the bot; its owner or an administrator reactivates it", async function () {
    const { realm, u } = await fresh();
    const bot = await createBot(u("hamlet"), "fool");
    expectSuccess(await u("hamlet").client.delete(`/bots/${bot.id}`));
    expectError(await bot.client.get("/users/me"), 401, "Account is deactivated", "USER_DEACTIVATED");
    expectSuccess(await u("hamlet").client.delete(`/bots/${bot.id}`)); // already: nothing to do
    // Someone else may not bring it back.
    expectError(
      await u("othello").client.post(`/users/${bot.id}/reactivate`),
      400,
      "Insufficient permission",
    );
    expect((await row(bot.id)).is_active).to.equal(0);
    // Not while another active user has its name.
    const twin = await createBot(u("othello"), "twin", { full_name: "fool bot" });
    expectError(
      await u("hamlet").client.post(`/users/${bot.id}/reactivate`),
      400,
      'There is already an active bot named "fool bot" in this organization. To reactivate this bot, you must rename or deactivate the other one first.',
    );
    expectSuccess(await u("othello").client.delete(`/bots/${twin.id}`));
    expectSuccess(await u("hamlet").client.post(`/users/${bot.id}/reactivate`));
    expectSuccess(await bot.client.get("/users/me"));
    // Nor by someone who may no longer create bots.
    expectSuccess(await u("hamlet").client.delete(`/bots/${bot.id}`));
    await setRealmGroupSetting(
      server,
      realm.id,
      "can_create_bots_group",
      await systemGroupId(server, realm.id, "role:administrators"),
    );
    await setRealmGroupSetting(
      server,
      realm.id,
      "can_create_write_only_bots_group",
      await systemGroupId(server, realm.id, "role:nobody"),
    );
    expectError(await u("hamlet").client.post(`/users/${bot.id}/reactivate`), 400, "Insufficient permission");
    expect((await row(bot.id)).is_active).to.equal(0);
    expectSuccess(await u("iago").client.post(`/users/${bot.id}/reactivate`));
    // People are still reactivated by administrators only.
    expectSuccess(await u("iago").client.delete(`/users/${u("cordelia").id}`));
    expectError(
      await u("hamlet").client.post(`/users/${u("cordelia").id}/reactivate`),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
  });

  it("a bot whose owner is deactivated goes to the administrator who reactivates it", async function () {
    const { u } = await fresh();
    const bot = await createBot(u("hamlet"), "fool");
    expectSuccess(await u("iago").client.delete(`/users/${u("hamlet").id}`));
    expect((await row(bot.id)).is_active).to.equal(0); // deactivated with its owner
    expectSuccess(await u("iago").client.post(`/users/${bot.id}/reactivate`));
    expect(await row(bot.id)).to.include({ is_active: 1, bot_owner_id: u("iago").id });
  });

  it("regenerating a bot's key revokes its old keys", async function () {
    const { u } = await fresh();
    const bot = await createBot(u("hamlet"), "fool");
    const body = expectSuccess(await u("hamlet").client.post(`/bots/${bot.id}/api_key/regenerate`));
    expect(Object.keys(body).sort()).to.deep.equal(["api_key", "msg", "result"]);
    expect(body.api_key).to.match(/^[A-Za-z0-9]{32}$/);
    expectError(await bot.client.get("/users/me"), 401, "Invalid API key", "INVALID_API_KEY");
    const client = new Client(server.url, { email: bot.email, apiKey: body.api_key as string });
    expectSuccess(await client.get("/users/me"));
    // Administrators may too.
    expectSuccess(await u("iago").client.post(`/bots/${bot.id}/api_key/regenerate`));
    expectError(await client.get("/users/me"), 401, "Invalid API key", "INVALID_API_KEY");
  });

  it("deactivating a person deactivates the bots they own", async function () {
    const { u } = await fresh();
    const mine = await createBot(u("hamlet"), "fool");
    const theirs = await createBot(u("othello"), "jester");
    expectSuccess(await u("iago").client.delete(`/users/${u("hamlet").id}`));
    expect((await row(mine.id)).is_active).to.equal(0);
    expect((await row(theirs.id)).is_active).to.equal(1);
    expectError(await mine.client.get("/users/me"), 401, "Account is deactivated", "USER_DEACTIVATED");
  });
});
