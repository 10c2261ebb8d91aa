import { expect } from "chai";
import { createBot, type TestBot } from "../helpers/bots.js";
import { createChannel } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import type { TestUser } from "../helpers/factories.js";
import { messageCount } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { lastMessage, postWebhook, webhookFixture } from "../helpers/webhooks.js";

const PING = () => webhookFixture("github", "ping__organization.json");
const PING_TEXT = "GitHub webhook has been successfully configured by eeshangarg.";
const GH = { "X-GitHub-Event": "ping" };
const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`;

describe("incoming webhooks: authentication, destination and errors", function () {
  let server: TestServer;
  let hamlet: TestUser;
  let bot: TestBot;

  before(async function () {
    server = await startTestServer();
    const realm = await server.factory.realm();
    hamlet = realm.users.hamlet!;
    await createChannel(hamlet, "dev", [hamlet]);
    bot = await createBot(hamlet, "hooks", { bot_type: 2 });
  });
  after(async function () {
    await server.close();
  });

  /** The request must fail so, and post nothing. */
  async function refused(
    path: string,
    body: string,
    headers: Record<string, string>,
    status: number,
    msg: string,
    code: string,
  ) {
    const count = await messageCount(server);
    expectError((await postWebhook(server, path, body, headers)) as never, status, msg, code);
    expect(await messageCount(server)).to.equal(count);
  }

  it("takes the key from HTTP Basic auth", async function () {
    const res = await postWebhook(server, "github?stream=dev", PING(), {
      ...GH,
      authorization: basic(bot.email, bot.apiKey),
    });
    expect(res.body).to.deep.equal({ result: "success", msg: "" });
    expect(await lastMessage(server)).to.include({ sender_id: bot.id, content: PING_TEXT });
  });

  it("takes the key from a form body", async function () {
    const body = new URLSearchParams({
      api_key: bot.apiKey,
      stream: "dev",
      payload: '{"text": "from a form"}',
    }).toString();
    const res = await postWebhook(server, "slack_incoming", body, {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(res.body).to.deep.equal({ result: "success", msg: "" });
    expect(await lastMessage(server)).to.include({ sender_id: bot.id, content: "from a form" });
  });

  it("refuses a wrong key, a missing key, and Basic auth naming another account", async function () {
    await refused(
      `github?api_key=${"x".repeat(32)}&stream=dev`,
      PING(),
      GH,
      401,
      "Invalid API key",
      "INVALID_API_KEY",
    );
    await refused(
      "github?stream=dev",
      PING(),
      GH,
      400,
      "Missing 'api_key' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    await refused(
      "github?stream=dev",
      PING(),
      { ...GH, authorization: basic(hamlet.email, bot.apiKey) },
      401,
      "Invalid API key",
      "INVALID_API_KEY",
    );
  });

  it("refuses a deactivated bot's key", async function () {
    const gone = await createBot(hamlet, "gone", { bot_type: 2 });
    expectSuccess(await hamlet.client.request("DELETE", `/bots/${gone.id}`, {}));
    await refused(
      `github?api_key=${gone.apiKey}&stream=dev`,
      PING(),
      GH,
      401,
      "Account is deactivated",
      "USER_DEACTIVATED",
    );
  });

  it("a person's key posts to a channel, as Zulip allows; without a channel it is refused", async function () {
    const key = hamlet.apiKey;
    const res = await postWebhook(server, `github?api_key=${key}&stream=dev`, PING(), GH);
    expect(res.body).to.deep.equal({ result: "success", msg: "" });
    expect(await lastMessage(server)).to.include({ sender_id: hamlet.id, content: PING_TEXT });
    await refused(`github?api_key=${key}`, PING(), GH, 400, "Missing 'stream' argument", "BAD_REQUEST");
  });

  it("without a stream, sends a direct message to the bot's owner", async function () {
    const res = await postWebhook(server, `github?api_key=${bot.apiKey}`, PING(), GH);
    expect(res.body).to.deep.equal({ result: "success", msg: "" });
    const message = await lastMessage(server);
    expect(message).to.include({ sender_id: bot.id, stream_id: null, content: PING_TEXT });
    const owners = await server.app.knex("user_messages").where({ message_id: message!.id }).pluck("user_id");
    expect(owners).to.include(hamlet.id);
  });

  it("a stream by ID works", async function () {
    const row = await server.app.knex("streams").where({ name: "dev" }).first<{ id: number }>("id");
    const res = await postWebhook(server, `github?api_key=${bot.apiKey}&stream=${row.id}`, PING(), GH);
    expect(res.body).to.deep.equal({ result: "success", msg: "" });
    expect(await lastMessage(server)).to.include({ stream_id: row.id, topic: "zulip-test-org" });
  });

  it("a channel that does not exist: success, nothing posted there, the owner told", async function () {
    server.clock.advance(61_000);
    const res = await postWebhook(server, `github?api_key=${bot.apiKey}&stream=nowhere`, PING(), GH);
    expect(res.body).to.deep.equal({ result: "success", msg: "" });
    const notice = await lastMessage(server);
    expect(notice!.content).to.equal(
      "Your bot `hooks-bot@chatd.test` tried to send a message to channel #**nowhere**, but that channel does not exist. Click [here](#channels/new) to create it.",
    );
    expect(notice!.stream_id).to.equal(null);
    const readers = await server.app.knex("user_messages").where({ message_id: notice!.id }).pluck("user_id");
    expect(readers).to.include(hamlet.id);
  });

  it("a malformed body: 400 Malformed JSON, and the owner is told how to fix it", async function () {
    for (const [integration, body] of [
      ["github", "{not json"],
      ["json", ""],
    ] as const) {
      server.clock.advance(61_000);
      const count = await messageCount(server);
      const res = await postWebhook(server, `${integration}?api_key=${bot.apiKey}&stream=dev`, body, GH);
      expectError(res as never, 400, "Malformed JSON", "INVALID_JSON");
      // Only the owner's notice: nothing in the channel.
      expect(await messageCount(server)).to.equal(count + 1);
      expect((await lastMessage(server))!.stream_id).to.equal(null);
    }
    const notice = await lastMessage(server);
    expect(notice!.content).to.equal(
      "Hi there! It looks like you tried to set up the Zulip JSON integration,\nbut didn't correctly configure the webhook to send data in the JSON format\nthat this integration expects!",
    );
  });

  it("tells the owner at most once a minute per bot", async function () {
    server.clock.advance(61_000);
    const count = await messageCount(server);
    for (let i = 0; i < 3; i++) await postWebhook(server, `json?api_key=${bot.apiKey}&stream=dev`, "[");
    expect(await messageCount(server)).to.equal(count + 1);
    server.clock.advance(61_000);
    await postWebhook(server, `json?api_key=${bot.apiKey}&stream=dev`, "[");
    expect(await messageCount(server)).to.equal(count + 2);
  });

  it("an integration chatd does not serve is not found", async function () {
    await refused(`nosuch?api_key=${bot.apiKey}&stream=dev`, "{}", {}, 404, "Not Found", "BAD_REQUEST");
  });

  it("register describes the integrations (realm_incoming_webhook_bots)", async function () {
    const state = expectSuccess(
      await hamlet.client.post("/register", { fetch_event_types: ["realm_incoming_webhook_bots"] }),
    );
    const bots = state.realm_incoming_webhook_bots as Array<Record<string, unknown>>;
    expect(bots.map((b) => b.name)).to.have.members([
      "alertmanager",
      "github",
      "gitlab",
      "json",
      "slack_incoming",
    ]);
    const github = bots.find((b) => b.name === "github")!;
    expect(Object.keys(github).sort()).to.deep.equal([
      "all_event_types",
      "config_options",
      "display_name",
      "name",
      "url_options",
    ]);
    expect(github.display_name).to.equal("GitHub");
    expect(github.url_options).to.deep.include({ key: "branches", label: "", input_type: "string" });
    expect(github.config_options).to.deep.equal([]);
    expect(bots.find((b) => b.name === "json")!.all_event_types).to.equal(null);
  });

  it("POST /bots accepts these integrations as service_name", async function () {
    expectSuccess(
      await hamlet.client.post("/bots", {
        full_name: "Alerts",
        short_name: "alerts",
        bot_type: 2,
        service_name: "alertmanager",
      }),
    );
  });
});
