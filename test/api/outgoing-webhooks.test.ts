import { rmSync } from "node:fs";
import { expect } from "chai";
import { createBot, type TestBot } from "../helpers/bots.js";
import { createChannel } from "../helpers/channels.js";
import { expectSuccess } from "../helpers/client.js";
import type { TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { waitFor, WebhookReceiver } from "../helpers/webhook-receiver.js";

/** Short enough that retries finish within a test. */
const FAST = {
  webhook_allowed_private_hosts: "127.0.0.1",
  outgoing_webhook_timeout_ms: 300,
  outgoing_webhook_retry_delay_ms: 0,
};

interface SentRow {
  id: number;
  sender_id: number;
  content: string;
  topic: string;
  sending_client: string;
  recipient_id: number;
}

const messagesBy = (server: TestServer, senderId: number) =>
  server.app.knex<SentRow>("messages").where({ sender_id: senderId }).orderBy("id").select();

async function pendingDeliveries(server: TestServer): Promise<number> {
  const row = await server.app.knex("outgoing_webhook_deliveries").count<{ n: number }[]>({ n: "*" });
  return Number(row[0]!.n);
}

async function webhookBot(owner: TestUser, name: string, url: string, params = {}): Promise<TestBot> {
  return createBot(owner, name, { bot_type: 3, payload_url: JSON.stringify(url), ...params });
}

describe("outgoing webhooks", function () {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let url: string;

  beforeEach(async function () {
    receiver = new WebhookReceiver();
    url = await receiver.start();
    server = await startTestServer(FAST);
  });
  afterEach(async function () {
    await server.close();
    await receiver.stop();
  });

  it("a mention in a channel posts SPEC's payload and the reply in the same topic", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    const bot = await webhookBot(hamlet, "echo", url);
    await createChannel(hamlet, "den", [hamlet]);
    expectSuccess(
      await hamlet.client.post("/users/me/subscriptions", {
        subscriptions: [{ name: "den" }],
        principals: [bot.id],
      }),
    );
    receiver.handler = (_req, res) => res.end(JSON.stringify({ content: "echo: hi" }));
    const content = "@**echo bot** hi";
    const sent = expectSuccess(
      await hamlet.client.post("/messages", { type: "stream", to: "den", topic: "t1", content }),
    );
    await waitFor(async () => (await messagesBy(server, bot.id)).length === 1);

    expect(receiver.requests).to.have.length(1);
    expect(receiver.requests[0]!.contentType).to.equal("application/json");
    const payload = JSON.parse(receiver.requests[0]!.body) as Record<string, unknown>;
    const service = await server.app
      .knex("bot_services")
      .where({ bot_user_id: bot.id })
      .first<{ token: string }>();
    expect(Object.keys(payload)).to.deep.equal([
      "data",
      "message",
      "bot_email",
      "bot_full_name",
      "token",
      "trigger",
    ]);
    expect(payload).to.include({
      data: content,
      bot_email: bot.email,
      bot_full_name: "echo bot",
      token: service.token,
      trigger: "mention",
    });
    const message = payload.message as Record<string, unknown>;
    expect(Object.keys(message).sort()).to.deep.equal(
      [
        "avatar_url",
        "client",
        "content",
        "content_type",
        "display_recipient",
        "id",
        "is_me_message",
        "reactions",
        "recipient_id",
        "rendered_content",
        "sender_email",
        "sender_full_name",
        "sender_id",
        "sender_realm_str",
        "stream_id",
        "subject",
        "submessages",
        "timestamp",
        "topic_links",
        "type",
      ].sort(),
    );
    const fetched = expectSuccess(
      await hamlet.client.get(`/messages/${sent.id as number}`, { apply_markdown: false }),
    ).message as Record<string, unknown>;
    for (const key of Object.keys(message)) {
      if (key === "rendered_content") continue;
      expect(message[key], key).to.deep.equal(fetched[key]);
    }
    expect(message).to.include({ type: "stream", content, content_type: "text/x-markdown", subject: "t1" });
    expect(message.rendered_content).to.contain('class="user-mention"');

    const [reply] = await messagesBy(server, bot.id);
    expect(reply).to.include({ content: "echo: hi", topic: "t1", sending_client: "OutgoingWebhookResponse" });
    const trigger = await server.app.knex("messages").where({ id: sent.id }).first<SentRow>();
    expect(reply!.recipient_id, "the same channel").to.equal(trigger.recipient_id);
    expect(await pendingDeliveries(server)).to.equal(0);
  });

  it("a direct message triggers direct_message; response_not_required posts nothing", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    const bot = await webhookBot(hamlet, "quiet", url);
    expectSuccess(await hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "ping" }));
    await waitFor(() => receiver.requests.length === 1);
    await waitFor(async () => (await pendingDeliveries(server)) === 0);
    const payload = JSON.parse(receiver.requests[0]!.body) as { trigger: string; data: string };
    expect(payload).to.include({ trigger: "direct_message", data: "ping" });
    expect(await messagesBy(server, bot.id)).to.have.length(0);
  });

  it("a direct reply goes back to the conversation; an empty or non-JSON answer posts nothing", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    const bot = await webhookBot(hamlet, "talk", url);
    receiver.handler = (_req, res) => res.end(JSON.stringify({ content: "pong" }));
    expectSuccess(await hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "ping" }));
    await waitFor(async () => (await messagesBy(server, bot.id)).length === 1);
    const dm = await server.app
      .knex("messages")
      .where({ sender_id: hamlet.id })
      .orderBy("id", "desc")
      .first<SentRow>();
    const [reply] = await messagesBy(server, bot.id);
    const personal = await server.app
      .knex("recipients")
      .where({ id: reply!.recipient_id })
      .first<{ type_id: number }>();
    expect(personal.type_id).to.equal(hamlet.id);
    expect(dm.content).to.equal("ping");

    for (const answer of ["", "not json", "[]"]) {
      receiver.handler = (_req, res) => res.end(answer);
      const before = receiver.requests.length;
      expectSuccess(
        await hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "again" }),
      );
      await waitFor(() => receiver.requests.length === before + 1);
      await waitFor(async () => (await pendingDeliveries(server)) === 0);
    }
    expect(await messagesBy(server, bot.id)).to.have.length(1);
  });

  it("a reply to a group direct message goes to the same group, as Zulip's does", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    const othello = realm.users.othello!;
    const bot = await webhookBot(hamlet, "group", url);
    receiver.handler = (_req, res) => res.end(JSON.stringify({ content: "to all" }));
    const sent = expectSuccess(
      await hamlet.client.post("/messages", { type: "private", to: [bot.id, othello.id], content: "hi" }),
    );
    await waitFor(async () => (await messagesBy(server, bot.id)).length === 1);
    const trigger = await server.app.knex("messages").where({ id: sent.id }).first<SentRow>();
    const [reply] = await messagesBy(server, bot.id);
    expect(reply!.recipient_id).to.equal(trigger.recipient_id);
    const seen = expectSuccess(await othello.client.get(`/messages/${reply!.id}`)).message as {
      type: string;
      display_recipient: Array<{ id: number }>;
    };
    expect(seen.type).to.equal("private");
    expect(seen.display_recipient.map((u) => u.id)).to.deep.equal(
      [hamlet.id, othello.id, bot.id].sort((a, b) => a - b),
    );
  });

  it("a channel message without a mention, and a bot's message, trigger nothing", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    const bot = await webhookBot(hamlet, "idle", url);
    const other = await createBot(hamlet, "gen");
    await createChannel(hamlet, "den", [hamlet]);
    expectSuccess(
      await hamlet.client.post("/users/me/subscriptions", {
        subscriptions: [{ name: "den" }],
        principals: [bot.id],
      }),
    );
    expectSuccess(
      await hamlet.client.post("/messages", { type: "stream", to: "den", topic: "t", content: "hi" }),
    );
    expectSuccess(await other.client.post("/messages", { type: "private", to: [bot.id], content: "hi" }));
    expect(await pendingDeliveries(server)).to.equal(0);
    expect(receiver.requests).to.have.length(0);
  });

  it("a mention triggers a bot that can read the channel, subscribed or not", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    const bot = await webhookBot(hamlet, "roam", url);
    await createChannel(hamlet, "open", [hamlet]);
    await createChannel(hamlet, "closed", [hamlet], { invite_only: true });
    const mention = "@**roam bot** there?";
    expectSuccess(
      await hamlet.client.post("/messages", { type: "stream", to: "closed", topic: "t", content: mention }),
    );
    expect(await pendingDeliveries(server)).to.equal(0);
    expectSuccess(
      await hamlet.client.post("/messages", { type: "stream", to: "open", topic: "t", content: mention }),
    );
    await waitFor(() => receiver.requests.length === 1);
    expect(JSON.parse(receiver.requests[0]!.body)).to.include({ trigger: "mention", data: mention });
    void bot;
  });

  it("a Slack-compatible bot gets Slack's form and posts its text", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    const bot = await webhookBot(hamlet, "slacky", url, { interface_type: 2 });
    await createChannel(hamlet, "den", [hamlet]);
    receiver.handler = (_req, res) => res.end(JSON.stringify({ text: "from slack" }));
    const content = "@**slacky bot** go";
    const sent = expectSuccess(
      await hamlet.client.post("/messages", { type: "stream", to: "den", topic: "t", content }),
    );
    await waitFor(async () => (await messagesBy(server, bot.id)).length === 1);
    expect(receiver.requests[0]!.contentType).to.equal("application/x-www-form-urlencoded");
    const form = Object.fromEntries(new URLSearchParams(receiver.requests[0]!.body));
    const service = await server.app
      .knex("bot_services")
      .where({ bot_user_id: bot.id })
      .first<{ token: string }>();
    const channel = await server.app
      .knex("streams")
      .where({ name: "den" })
      .first<{ id: number; realm_id: number }>();
    const realmRow = await server.app
      .knex("realms")
      .where({ id: channel.realm_id })
      .first<{ string_id: string }>();
    const message = await server.app
      .knex("messages")
      .where({ id: sent.id as number })
      .first<{ date_sent: number }>();
    expect(form).to.deep.equal({
      token: service.token,
      team_id: realmRow.string_id,
      team_domain: hamlet.email.split("@")[1]!,
      channel_id: String(channel.id),
      channel_name: "den",
      timestamp: String(message.date_sent),
      user_id: String(hamlet.id),
      user_name: hamlet.fullName,
      text: content,
      trigger_word: "mention",
      service_id: String(bot.id),
    });
    expect((await messagesBy(server, bot.id))[0]!.content).to.equal("from slack");

    // Slack's interface has no direct messages: the bot says so, nothing is sent.
    expectSuccess(await hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "dm" }));
    await waitFor(async () => (await messagesBy(server, bot.id)).length === 2);
    expect((await messagesBy(server, bot.id))[1]!.content).to.equal(
      "Failure! Slack outgoing webhooks don't support private messages.",
    );
    expect(receiver.requests).to.have.length(1);
  });

  it("a redirect is not followed: it is a failed answer", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    const bot = await webhookBot(hamlet, "moved", url);
    receiver.handler = (_req, res) => {
      res.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data/" });
      res.end();
    };
    expectSuccess(await hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "x" }));
    await waitFor(async () => (await messagesBy(server, bot.id)).length === 2);
    expect(receiver.requests).to.have.length(1);
    expect((await messagesBy(server, bot.id))[0]!.content).to.equal(
      "Failure! Third party responded with 302",
    );
  });

  it("a 500 is not retried: the failure is posted and the owner told the status code", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    const bot = await webhookBot(hamlet, "broken", url);
    receiver.handler = (_req, res) => {
      res.statusCode = 500;
      res.end("oops");
    };
    const sent = expectSuccess(
      await hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "x" }),
    );
    await waitFor(async () => (await messagesBy(server, bot.id)).length === 2);
    expect(receiver.requests).to.have.length(1);
    const [failure, notice] = await messagesBy(server, bot.id);
    expect(failure!.content).to.equal("Failure! Third party responded with 500");
    expect(notice!.content).to.equal(
      `[A message](http://chatd.test/#narrow/dm/${[hamlet.id, bot.id].sort((a, b) => a - b).join(",")}/near/${sent.id as number}) ` +
        "to your bot @_**broken bot** triggered an outgoing webhook.\n" +
        "The webhook got a response with status code *500*.\n" +
        "The response contains the following payload:\n```\nb'oops'\n```",
    );
    expect(await pendingDeliveries(server)).to.equal(0);
  });

  for (const [name, handler, reason] of [
    ["a timeout", () => undefined, "Request timed out after 0.3 seconds."],
    [
      "a dropped connection",
      (req: { socket: { destroy(): void } }) => req.socket.destroy(),
      "A connection error occurred. Is my bot server down?",
    ],
  ] as const) {
    it(`${name} is retried 3 times, then the bot is unavailable and the owner told`, async function () {
      const realm = await server.factory.realm();
      const hamlet = realm.users.hamlet!;
      const bot = await webhookBot(hamlet, "flaky", url);
      receiver.handler = handler;
      expectSuccess(await hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "x" }));
      await waitFor(async () => (await messagesBy(server, bot.id)).length === 2);
      expect(receiver.requests).to.have.length(4);
      const [failure, notice] = await messagesBy(server, bot.id);
      expect(failure!.content).to.equal("Failure! Bot is unavailable");
      expect(notice!.content).to.match(
        /to your bot @_\*\*flaky bot\*\* triggered an outgoing webhook\.\n(.*)$/,
      );
      expect(notice!.content.split("\n")[1]).to.equal(reason);
      expect(await pendingDeliveries(server)).to.equal(0);
    });
  }

  it("POST /messages does not wait for the endpoint", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    const bot = await webhookBot(hamlet, "slow", url);
    receiver.handler = (_req, res) => void setTimeout(() => res.end("{}"), 2000);
    const start = Date.now();
    expectSuccess(await hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "x" }));
    expect(Date.now() - start).to.be.below(1000);
    await waitFor(() => receiver.requests.length === 1);
  });
});

describe("outgoing webhooks: durability and the SSRF guard", function () {
  it("a delivery pending across a restart is delivered after it", async function () {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    // Retries wait a minute: the delivery is still pending when the server stops.
    const settings = { ...FAST, outgoing_webhook_retry_delay_ms: 60_000 };
    let server = await startTestServer(settings, { keepDataDir: true });
    const dataDir = server.dataDir;
    try {
      const realm = await server.factory.realm();
      const hamlet = realm.users.hamlet!;
      const bot = await webhookBot(hamlet, "later", url);
      receiver.handler = () => undefined;
      expectSuccess(await hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "x" }));
      await waitFor(async () => {
        const row = await server.app.knex("outgoing_webhook_deliveries").first<{ failed_tries: number }>();
        return row?.failed_tries === 1;
      });
      await server.stop();

      receiver.handler = (_req, res) => res.end(JSON.stringify({ content: "back" }));
      server = await startTestServer(settings, { dataDir, keepDataDir: true });
      expect(await pendingDeliveries(server)).to.equal(1);
      server.clock.advance(60_000);
      await waitFor(async () => (await messagesBy(server, bot.id)).length === 1);
      expect((await messagesBy(server, bot.id))[0]!.content).to.equal("back");
      expect(receiver.requests).to.have.length(2);
      expect(await pendingDeliveries(server)).to.equal(0);
    } finally {
      await server.close();
      await receiver.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("private and link-local targets are refused even with loopback allowed, also in IPv6 forms", async function () {
    const server = await startTestServer(FAST);
    try {
      const realm = await server.factory.realm();
      const hamlet = realm.users.hamlet!;
      for (const [name, target] of [
        ["lan", "http://10.1.2.3/hook"],
        ["meta", "http://169.254.169.254/latest"],
        ["six", "http://[fd00::1]/hook"],
        ["nat64", "http://[64:ff9b::a9fe:a9fe]/latest"],
        ["sixtofour", "http://[2002:a00:1::1]/hook"],
      ] as const) {
        const bot = await webhookBot(hamlet, name, target);
        expectSuccess(await hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "x" }));
        await waitFor(async () => (await messagesBy(server, bot.id)).length === 2);
        expect((await messagesBy(server, bot.id))[0]!.content).to.equal(
          "Failure! Third party responded with 407",
        );
      }
    } finally {
      await server.close();
    }
  });

  it("loopback is refused without webhook_allowed_private_hosts; the owner is told", async function () {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    const server = await startTestServer({ ...FAST, webhook_allowed_private_hosts: "" });
    try {
      const realm = await server.factory.realm();
      const hamlet = realm.users.hamlet!;
      const bot = await webhookBot(hamlet, "inside", url);
      expectSuccess(await hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "x" }));
      await waitFor(async () => (await messagesBy(server, bot.id)).length === 2);
      expect(receiver.requests).to.have.length(0);
      const [failure, notice] = await messagesBy(server, bot.id);
      expect(failure!.content).to.equal("Failure! Third party responded with 407");
      expect(notice!.content.split("\n")[1]).to.equal(
        "The URL configured for the webhook is for a private or disallowed network.",
      );
    } finally {
      await server.close();
      await receiver.stop();
    }
  });
});
