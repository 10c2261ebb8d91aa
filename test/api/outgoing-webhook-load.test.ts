import type { ServerResponse } from "node:http";
import { expect } from "chai";
import { MAX_DELIVERIES_IN_FLIGHT } from "../../src/actions/outgoing-webhooks.js";
import { createBot, type TestBot } from "../helpers/bots.js";
import { expectSuccess } from "../helpers/client.js";
import type { TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { waitFor, WebhookReceiver } from "../helpers/webhook-receiver.js";

/**
 * The delivery worker under load (the benchmark's scenario in small): a slow endpoint
 * never holds more than MAX_DELIVERIES_IN_FLIGHT requests, and finished deliveries share
 * write transactions instead of taking the write lock one by one.
 */
describe("outgoing webhooks under load", function () {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let held: ServerResponse[];
  let hamlet: TestUser;
  let bot: TestBot;

  beforeEach(async function () {
    receiver = new WebhookReceiver();
    const url = await receiver.start();
    held = [];
    // The endpoint answers nothing until the test releases it.
    receiver.handler = (_req, res) => void held.push(res);
    server = await startTestServer({ webhook_allowed_private_hosts: "127.0.0.1" });
    hamlet = (await server.factory.realm()).users.hamlet!;
    bot = await createBot(hamlet, "slow", { bot_type: 3, payload_url: JSON.stringify(url) });
  });
  afterEach(async function () {
    await server.close();
    await receiver.stop();
  });

  const pending = async () =>
    Number((await server.app.knex("outgoing_webhook_deliveries").count({ n: "*" }))[0]!.n);
  const release = () => {
    for (const res of held.splice(0)) res.end(JSON.stringify({ response_not_required: true }));
  };
  async function sendToBot(count: number): Promise<void> {
    for (let i = 0; i < count; i += 25) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(25, count - i) }, (_, k) =>
          hamlet.client.post("/messages", { type: "private", to: [bot.id], content: `job ${i + k}` }),
        ),
      );
      for (const answer of answers) expectSuccess(answer);
    }
  }

  it("keeps at most MAX_DELIVERIES_IN_FLIGHT requests open; the rest start as they finish", async function () {
    this.timeout(60_000);
    const total = MAX_DELIVERIES_IN_FLIGHT + 20;
    await sendToBot(total);
    await waitFor(() => held.length === MAX_DELIVERIES_IN_FLIGHT, 20_000);
    // The bound holds while the endpoint keeps every request waiting.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).to.have.length(MAX_DELIVERIES_IN_FLIGHT);
    expect(await pending()).to.equal(total);
    release();
    await waitFor(() => held.length === 20, 20_000);
    release();
    await waitFor(async () => (await pending()) === 0, 20_000);
    expect(receiver.requests).to.have.length(total);
  });

  it("writes finished deliveries together, not one write transaction each", async function () {
    await sendToBot(30);
    await waitFor(() => held.length === 30);
    const db = server.app.db;
    const transaction = db.transaction.bind(db);
    let transactions = 0;
    db.transaction = (fn) => {
      transactions++;
      return transaction(fn);
    };
    try {
      release();
      await waitFor(async () => (await pending()) === 0);
    } finally {
      db.transaction = transaction;
    }
    expect(transactions).to.be.above(0);
    expect(transactions).to.be.at.most(5);
  });
});
