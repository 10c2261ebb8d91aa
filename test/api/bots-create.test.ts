import { createHash } from "node:crypto";
import { expect } from "chai";
import type { BotServiceRow } from "../../src/db/rows.js";
import { createBot } from "../helpers/bots.js";
import { createChannel } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { setRealmGroupSetting, systemGroupId } from "../helpers/user-groups.js";

const gravatar = (email: string) =>
  `https://secure.gravatar.com/avatar/${createHash("md5").update(email).digest("hex")}?d=identicon&version=1`;

describe("bots: POST /bots and GET /bots", function () {
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
  const botCount = async (realm: TestRealm) =>
    Number(
      (await server.app.knex("users").where({ realm_id: realm.id, is_bot: true }).count({ n: "*" }))[0]!.n,
    );
  /** The request must fail with this message and create no bot. */
  const refused = async (realm: TestRealm, user: TestUser, params: Params, msg: string) => {
    const before = await botCount(realm);
    expectError(
      await user.client.post("/bots", { full_name: "Yorick", short_name: "yorick", ...params }),
      400,
      msg,
    );
    expect(await botCount(realm)).to.equal(before);
  };

  it("creates a generic bot owned by the caller, with Zulip's response", async function () {
    const { u } = await fresh();
    const res = await u("hamlet").client.post("/bots", {
      full_name: "The Bot of Hamlet",
      short_name: "hambot",
    });
    const body = expectSuccess(res);
    expect(Object.keys(body).sort()).to.deep.equal([
      "api_key",
      "avatar_url",
      "default_all_public_streams",
      "default_events_register_stream",
      "default_sending_stream",
      "msg",
      "result",
      "user_id",
    ]);
    expect(body).to.include({
      avatar_url: gravatar("hambot-bot@chatd.test"),
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
    });
    expect(body.api_key).to.match(/^[A-Za-z0-9]{32}$/);
    // The key works at once, with the bot's email <short_name>-bot@<realm host>.
    const me = expectSuccess(
      await server.anonymous.get("/users/me", {}, { headers: basic("hambot-bot@chatd.test", body.api_key) }),
    );
    expect(me).to.include({
      user_id: body.user_id,
      email: "hambot-bot@chatd.test",
      full_name: "The Bot of Hamlet",
      is_bot: true,
      bot_type: 1,
      bot_owner_id: u("hamlet").id,
      role: 400,
    });
    const listed = expectSuccess(await u("othello").client.get(`/users/${body.user_id as number}`)).user;
    expect(listed).to.include({ is_bot: true, bot_type: 1, bot_owner_id: u("hamlet").id });
  });

  it("sets the default channels the owner may see, and refuses others", async function () {
    const { realm, u } = await fresh();
    await createChannel(u("iago"), "castle", [u("iago")]);
    await createChannel(u("iago"), "secret", [u("iago")], { invite_only: true });
    const body = expectSuccess(
      await u("hamlet").client.post("/bots", {
        full_name: "Herald",
        short_name: "herald",
        default_sending_stream: "castle",
        default_events_register_stream: "castle",
        default_all_public_streams: true,
      }),
    );
    expect(body).to.include({
      default_sending_stream: "castle",
      default_events_register_stream: "castle",
      default_all_public_streams: true,
    });
    await refused(realm, u("hamlet"), { default_sending_stream: "secret" }, "Invalid channel name 'secret'");
    await refused(
      realm,
      u("hamlet"),
      { default_events_register_stream: "nowhere" },
      "Invalid channel name 'nowhere'",
    );
  });

  it("gives an outgoing webhook bot a service with a token; an incoming one needs a known integration", async function () {
    const { realm, u } = await fresh();
    const outgoing = await createBot(u("hamlet"), "hook", {
      bot_type: 3,
      payload_url: JSON.stringify("https://bots.example.com/zulip"),
      interface_type: 2,
    });
    const services = await server.app.knex<BotServiceRow>("bot_services").where({ bot_user_id: outgoing.id });
    expect(services).to.have.length(1);
    expect(services[0]).to.include({
      name: "hook",
      base_url: "https://bots.example.com/zulip",
      interface: 2,
    });
    expect(services[0]!.token).to.match(/^[A-Za-z0-9]{32}$/);
    const named = await createBot(u("hamlet"), "hook2", {
      bot_type: 3,
      service_name: "relay",
      payload_url: JSON.stringify("http://localhost:5002"),
    });
    expect(
      (await server.app.knex<BotServiceRow>("bot_services").where({ bot_user_id: named.id }))[0],
    ).to.include({
      name: "relay",
      interface: 1,
    });
    // Incoming webhooks: no service; a service name must be an integration chatd serves.
    const incoming = await createBot(u("hamlet"), "feed", { bot_type: 2 });
    expect(await server.app.knex("bot_services").where({ bot_user_id: incoming.id })).to.deep.equal([]);
    await refused(
      realm,
      u("hamlet"),
      { bot_type: 2, service_name: "nosuch" },
      "Invalid integration 'nosuch'.",
    );
  });

  it("validates names, types and URLs in Zulip's words, creating nothing", async function () {
    const { realm, u } = await fresh();
    const hamlet = u("hamlet");
    await createBot(hamlet, "taken");
    for (const [params, msg] of [
      [{ short_name: "" }, "Bad name or username"],
      [{ short_name: "   " }, "Bad name or username"],
      [{ short_name: "my\nbot" }, "Bad name or username"],
      [{ short_name: "my bot" }, "Bad name or username"],
      [{ full_name: "" }, "Name must not be empty!"],
      [{ full_name: "x".repeat(101) }, "Name too long!"],
      [{ full_name: "Bot|12" }, "Invalid format!"],
      [{ short_name: "taken" }, "Email is already in use."],
      [{ short_name: "TAKEN" }, "Email is already in use."],
      [{ full_name: "Hamlet Dane" }, "Name is already in use."],
      [{ full_name: "taken bot" }, "Name is already in use."],
      [{ bot_type: 4, service_name: "helloworld" }, "Embedded bots are not enabled."],
      [{ bot_type: 9 }, "Invalid bot type"],
      [{ bot_type: "x" }, "bot_type is not an integer"],
      [{ interface_type: 3 }, "Invalid interface type"],
      [{ bot_type: 3, payload_url: "http://example.com" }, "payload_url is not valid JSON"],
      [
        { bot_type: 3, payload_url: JSON.stringify("ftp://example.com/x") },
        "Invalid payload_url: Value error, Not a URL",
      ],
      [
        { bot_type: 3, payload_url: JSON.stringify("http://127.0.0.:5002") },
        "Invalid payload_url: Value error, Not a URL",
      ],
      [
        { bot_type: 3, payload_url: JSON.stringify("javascript:alert(1)") },
        "Invalid payload_url: Value error, Not a URL",
      ],
      [
        { bot_type: 3, payload_url: JSON.stringify("http://exa mple.com") },
        "Invalid payload_url: Value error, Not a URL",
      ],
      [{ bot_type: 3, payload_url: JSON.stringify(5) }, "payload_url is not a string"],
      [{ bot_type: 2, config_data: JSON.stringify({ a: 1 }) }, 'config_data["a"] is not a string'],
    ] as Array<[Params, string]>) {
      await refused(realm, hamlet, params, msg);
    }
  });

  it("accepts http(s) URLs on names, localhost and IP addresses", async function () {
    const { u } = await fresh();
    let n = 0;
    for (const url of [
      "http://example.com",
      "https://bots.example.co.uk:8443/hook?x=1#y",
      "http://localhost:5002/",
      "http://127.0.0.1:9000",
      "http://[::1]:8080/zulip",
      "https://user:pw@example.org/path",
    ]) {
      await createBot(u("hamlet"), `url${n++}`, { bot_type: 3, payload_url: JSON.stringify(url) });
    }
  });

  it("follows can_create_bots_group and can_create_write_only_bots_group; never guests or bots", async function () {
    const { realm, u } = await fresh();
    await refused(realm, u("polonius"), {}, "Not allowed for guest users");
    await refused(realm, u("polonius"), { bot_type: 2 }, "Not allowed for guest users");
    const bot = await createBot(u("hamlet"), "helper");
    const asBot = { ...u("hamlet"), client: bot.client };
    await refused(realm, asBot, {}, "This endpoint does not accept bot requests.");

    const admins = await systemGroupId(server, realm.id, "role:administrators");
    const nobody = await systemGroupId(server, realm.id, "role:nobody");
    await setRealmGroupSetting(server, realm.id, "can_create_bots_group", admins);
    await refused(realm, u("hamlet"), {}, "Insufficient permission");
    await refused(realm, u("hamlet"), { bot_type: 3 }, "Insufficient permission");
    // Members may still create bots that can only send messages.
    await createBot(u("hamlet"), "writer", { bot_type: 2 });
    await createBot(u("iago"), "admins-own", { bot_type: 3 });
    await setRealmGroupSetting(server, realm.id, "can_create_write_only_bots_group", nobody);
    await refused(realm, u("hamlet"), { bot_type: 2 }, "Insufficient permission");
  });

  it("GET /bots lists the caller's own active bots, oldest first", async function () {
    const { u } = await fresh();
    const first = await createBot(u("hamlet"), "first");
    server.clock.advance(60_000);
    const second = await createBot(u("hamlet"), "second", {
      bot_type: 3,
      payload_url: JSON.stringify("http://a.example.com"),
    });
    const gone = await createBot(u("hamlet"), "gone");
    await createBot(u("othello"), "othellos");
    expectSuccess(await u("hamlet").client.delete(`/bots/${gone.id}`));
    const bots = expectSuccess(await u("hamlet").client.get("/bots")).bots as Array<Record<string, unknown>>;
    expect(bots.map((b) => b.username)).to.deep.equal([first.email, second.email]);
    expect(bots[0]).to.deep.equal({
      username: first.email,
      full_name: "first bot",
      api_key: "",
      avatar_url: gravatar(first.email),
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
    });
    // Administrators list their own bots here too (realm_bots has every bot for them).
    expect(expectSuccess(await u("iago").client.get("/bots")).bots).to.deep.equal([]);
    expectError(await u("polonius").client.get("/bots"), 400, "Not allowed for guest users");
    expectError(await first.client.get("/bots"), 400, "This endpoint does not accept bot requests.");
  });
});

function basic(email: string, key: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}` };
}
