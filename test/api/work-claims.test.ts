import { expect } from "chai";
import { webhookLeaseMs } from "../../src/actions/outgoing-webhooks.js";
import { SCHEDULED_LEASE_MS } from "../../src/actions/scheduled-delivery.js";
import { nowSeconds } from "../../src/clock.js";
import { createBot } from "../helpers/bots.js";
import { cast, channelMessages, createChannel, type Cast } from "../helpers/channels.js";
import { expectSuccess } from "../helpers/client.js";
import { sqliteOnly } from "../helpers/postgres.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { TestClock } from "../helpers/clock.js";
import { waitFor, WebhookReceiver } from "../helpers/webhook-receiver.js";

/**
 * Claims on queued work (db/claims.ts): a delivery or scheduled message claimed by a
 * process that died is left alone until the claim's lease runs out, then done once.
 * (Two servers over one PostgreSQL doing each exactly once: test/cli/work-claims.test.ts.)
 */
describe("work claims: a dead claimer's work is retried after its lease", function () {
  let server: TestServer;
  let u: Cast;
  let receiver: WebhookReceiver;

  beforeEach(async function () {
    receiver = new WebhookReceiver();
    const url = await receiver.start();
    server = await startTestServer({
      webhook_allowed_private_hosts: "127.0.0.1",
      outgoing_webhook_timeout_ms: 300,
      // The first attempt fails; its retry waits a minute, unclaimed.
      outgoing_webhook_retry_delay_ms: 60_000,
    });
    server.clock.freeze();
    u = cast(await server.factory.realm());
    receiver.handler = () => undefined;
    (this as { url?: string }).url = url;
  });
  afterEach(async function () {
    await server.close();
    await receiver.stop();
  });

  /** What another process, killed since, left: a claim until `untilMs`. */
  const deadClaim = (table: string, untilMs: number) =>
    server.app.db.transaction(async (tx) => {
      await tx.knex(table).update({ claimed_by: "dead-host:4242:abcdef#1", claimed_until: untilMs });
    });

  it("an outgoing webhook delivery", async function () {
    const url = (this as { url?: string }).url!;
    const bot = await createBot(u.hamlet, "claimed", { bot_type: 3, payload_url: JSON.stringify(url) });
    expectSuccess(await u.hamlet.client.post("/messages", { type: "private", to: [bot.id], content: "x" }));
    await waitFor(async () => {
      const row = await server.app.knex("outgoing_webhook_deliveries").first<{ failed_tries: number }>();
      return row?.failed_tries === 1;
    });
    expect(receiver.requests).to.have.length(1);
    // The retry falls due while a dead process holds it.
    const leaseEnd = server.clock.nowMs() + webhookLeaseMs(server.app.config);
    await deadClaim("outgoing_webhook_deliveries", leaseEnd);
    receiver.handler = (_req, res) => res.end(JSON.stringify({ content: "answered" }));
    server.clock.advance(60_000);
    await server.app.outgoingWebhooks.idle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).to.have.length(1);
    // The lease runs out: the delivery is made, once.
    server.clock.advance(leaseEnd - server.clock.nowMs());
    await waitFor(async () => (await server.app.knex("outgoing_webhook_deliveries")).length === 0);
    expect(receiver.requests).to.have.length(2);
    const replies = await server.app.knex("messages").where({ sender_id: bot.id }).pluck("content");
    expect(replies).to.deep.equal(["answered"]);
  });

  it("a scheduled message", async function () {
    const denmark = await createChannel(u.hamlet, "Denmark", [u.hamlet]);
    const dueAt = nowSeconds(server.clock) + 60;
    expectSuccess(
      await u.hamlet.client.post("/scheduled_messages", {
        type: "stream",
        to: denmark,
        topic: "plans",
        content: "Claimed",
        scheduled_delivery_timestamp: dueAt,
      }),
    );
    const sent = async () =>
      (await channelMessages(server, denmark))
        .filter((m) => m.sender_id === u.hamlet.id)
        .map((m) => m.content);
    const leaseEnd = server.clock.nowMs() + SCHEDULED_LEASE_MS + 30_000;
    await deadClaim("scheduled_messages", leaseEnd);
    server.clock.advance(61_000);
    await server.app.scheduledDelivery.idle();
    expect(await sent()).to.deep.equal([]);
    // The timer is armed for the lease's end (due times are whole seconds): moving the clock there is enough.
    server.clock.advance(Math.ceil(leaseEnd / 1000) * 1000 - server.clock.nowMs());
    await server.app.scheduledDelivery.idle();
    expect(await sent()).to.deep.equal(["Claimed"]);
    const row = await server.app.knex("scheduled_messages").first("delivered", "claimed_by", "claimed_until");
    expect(row).to.deep.include({ claimed_by: null, claimed_until: null });
    expect(Boolean(row.delivered)).to.equal(true);
  });
});

describe("work claims: a single server's start gives back a crashed run's claims", function () {
  it("sends a scheduled message claimed by the crashed run at once, not after the lease", async function () {
    sqliteOnly(
      this,
      "one process holds the SQLite data directory; on PostgreSQL other machines may hold claims",
    );
    const first = await startTestServer({}, { keepDataDir: true });
    const servers: TestServer[] = [first];
    try {
      const u = cast(await first.factory.realm());
      const denmark = await createChannel(u.hamlet, "Denmark", [u.hamlet]);
      expectSuccess(
        await u.hamlet.client.post("/scheduled_messages", {
          type: "stream",
          to: denmark,
          topic: "plans",
          content: "After the crash",
          scheduled_delivery_timestamp: nowSeconds(first.clock) + 60,
        }),
      );
      // The run crashed mid-delivery: its claim lasts another ten minutes.
      await first.app.db.transaction(async (tx) => {
        await tx.knex("scheduled_messages").update({
          claimed_by: "this-host:1:abcdef#1",
          claimed_until: first.clock.nowMs() + 600_000,
        });
      });
      await first.stop();

      const late = new TestClock();
      late.advance(120_000);
      const second = await startTestServer({}, { dataDir: first.dataDir, keepDataDir: true, clock: late });
      servers.push(second);
      await second.app.scheduledDelivery.idle();
      const sent = (await channelMessages(second, denmark)).filter((m) => m.sender_id === u.hamlet.id);
      expect(sent.map((m) => m.content)).to.deep.equal(["After the crash"]);
      const row = await second.app.knex("scheduled_messages").first("claimed_by", "claimed_until");
      expect(row).to.deep.include({ claimed_by: null, claimed_until: null });
    } finally {
      for (const server of servers.reverse()) await server.close();
    }
  });
});
