import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { queueEmails } from "../../src/actions/email-queue.js";
import { MAX_TRIES, RETRY_DELAY_MS } from "../../src/actions/email-delivery.js";
import { composeEmail } from "../../src/lib/email-content.js";
import { createLogger } from "../../src/logger.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { parseEmail, TestSmtpServer } from "../helpers/smtp.js";
import { waitFor } from "../helpers/webhook-receiver.js";

interface EmailRow {
  id: number;
  state: string;
  tries: number;
  last_error: string | null;
  sent_at: number | null;
}

const CONTENT = composeEmail({
  realmName: "Elsinore",
  serverUrl: "http://chatd.test",
  subject: "Something is rotten",
  paragraphs: ["In the state of Denmark & beyond."],
  action: { label: "Look", url: "http://chatd.test/#narrow/dm/1" },
});

/** Queues one email in the realm's name, as an action would (committed, then the worker wakes). */
async function queueOne(
  server: TestServer,
  realmId: number | null,
  to = "hamlet@zulip.test",
): Promise<number> {
  await server.app.db.transaction((tx) => queueEmails(server.app, tx, [{ realmId, to, content: CONTENT }]));
  const row = await server.app.knex("emails").orderBy("id", "desc").first<{ id: number }>("id");
  return row.id;
}

const emailRow = (server: TestServer, id: number) =>
  server.app.knex("emails").where({ id }).first<EmailRow>("id", "state", "tries", "last_error", "sent_at");

describe("email delivery", function () {
  const smtp = new TestSmtpServer();

  before(async function () {
    await smtp.start();
  });
  after(async function () {
    await smtp.stop();
  });
  beforeEach(function () {
    smtp.received.length = 0;
    smtp.refused = 0;
    smtp.refuseWith = null;
  });

  it("sends a queued email once, in the realm's name, with a text and an HTML body", async function () {
    let log = "";
    const server = await startTestServer(
      { ...smtp.config(), email_from: "noreply@chatd.test" },
      { logger: createLogger("debug", (line) => (log += line)) },
    );
    try {
      const realm = await server.factory.realm({});
      const id = await queueOne(server, realm.id);
      await waitFor(async () => (await emailRow(server, id))?.state === "sent");
      // Another run (a later wake) sends nothing again.
      server.app.emailDelivery.noteDue(server.clock.nowMs() / 1000);
      await server.app.emailDelivery.idle();
      expect(smtp.received).to.have.length(1);
      const email = smtp.received[0]!;
      expect(email.to).to.deep.equal(["hamlet@zulip.test"]);
      expect(email.from).to.equal("Elsinore <noreply@chatd.test>");
      expect(email.subject).to.equal("Something is rotten");
      expect(email.text).to.contain("In the state of Denmark & beyond.");
      expect(email.text).to.contain("Look: http://chatd.test/#narrow/dm/1");
      expect(email.html).to.contain("<p>In the state of Denmark &#38; beyond.</p>");
      expect(email.html).to.contain('href="http://chatd.test/#narrow/dm/1"');
      const row = await emailRow(server, id);
      expect(row).to.include({ state: "sent", tries: 1, last_error: null });
      expect(Number(row.sent_at)).to.be.above(0);
      expect(log).to.contain(`email ${id}: sent (250`);
      expect(log).not.to.contain("Denmark");
    } finally {
      await server.close();
    }
  });

  it("retries a refused email with backoff, then keeps it failed with the server's last answer", async function () {
    const server = await startTestServer(smtp.config());
    try {
      smtp.refuseWith = "451 Greylisted, try again later";
      const id = await queueOne(server, null);
      for (let tries = 1; tries < MAX_TRIES; tries++) {
        await waitFor(async () => (await emailRow(server, id))?.tries === tries);
        expect((await emailRow(server, id)).state).to.equal("queued");
        // Not before its time: the next attempt waits for the doubled delay.
        server.clock.advance(RETRY_DELAY_MS * 2 ** (tries - 1) - 1000);
        await server.app.emailDelivery.idle();
        expect((await emailRow(server, id)).tries).to.equal(tries);
        server.clock.advance(1000);
      }
      await waitFor(async () => (await emailRow(server, id))?.state === "failed");
      const row = await emailRow(server, id);
      expect(row).to.include({ state: "failed", tries: MAX_TRIES, sent_at: null });
      expect(row.last_error).to.contain("451 Greylisted, try again later");
      expect(smtp.refused).to.equal(MAX_TRIES);
      // Failed is final: the server accepting now changes nothing.
      smtp.refuseWith = null;
      server.clock.advance(24 * 3600_000);
      await server.app.emailDelivery.idle();
      expect(smtp.received).to.have.length(0);
    } finally {
      await server.close();
    }
  });

  it("a permanent refusal (5xx) fails at once", async function () {
    const server = await startTestServer(smtp.config());
    try {
      smtp.refuseWith = "550 No such user here";
      const id = await queueOne(server, null);
      await waitFor(async () => (await emailRow(server, id))?.state === "failed");
      expect(await emailRow(server, id)).to.include({ tries: 1 });
      expect((await emailRow(server, id)).last_error).to.contain("550 No such user here");
    } finally {
      await server.close();
    }
  });

  it("an unreachable server is retried: the network's error is the last answer", async function () {
    const server = await startTestServer({ ...smtp.config(), smtp_port: 1 });
    try {
      const id = await queueOne(server, null);
      await waitFor(async () => (await emailRow(server, id))?.tries === 1);
      const row = await emailRow(server, id);
      expect(row.state).to.equal("queued");
      expect(row.last_error).to.match(/ECONNREFUSED|connect/);
    } finally {
      await server.close();
    }
  });

  it("an email still queued when the server stops is sent by the next server", async function () {
    let server = await startTestServer(smtp.config(), { keepDataDir: true });
    const dataDir = server.dataDir;
    try {
      const realm = await server.factory.realm({});
      smtp.refuseWith = "421 Service not available";
      const id = await queueOne(server, realm.id);
      await waitFor(async () => (await emailRow(server, id))?.tries === 1);
      await server.stop();

      smtp.refuseWith = null;
      server = await startTestServer(smtp.config(), { dataDir, keepDataDir: true });
      expect((await emailRow(server, id)).state).to.equal("queued");
      // The new server's first run (started with it) has looked at the row and armed its timer.
      await server.app.emailDelivery.idle();
      server.clock.advance(RETRY_DELAY_MS);
      await waitFor(async () => (await emailRow(server, id))?.state === "sent", 20_000);
      expect(smtp.received).to.have.length(1);
      expect(smtp.received[0]!.subject).to.equal("Something is rotten");
      expect(await emailRow(server, id)).to.include({ tries: 2 });
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("of two servers over one database, only one sends each email", async function () {
    const first = await startTestServer(smtp.config(), { keepDataDir: true });
    const dataDir = first.dataDir;
    let second: TestServer | null = null;
    try {
      await first.app.emailDelivery.stop();
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) ids.push(await queueOne(first, null, `reader${i}@zulip.test`));
      // Both run over the same rows at once; claims let each email go out once.
      second = await startTestServer(smtp.config(), { dataDir, keepDataDir: true });
      const { deliverDueEmails } = await import("../../src/actions/email-delivery.js");
      await Promise.all([deliverDueEmails(first.app), second.app.emailDelivery.idle()]);
      await waitFor(async () => (await first.app.knex("emails").where({ state: "sent" })).length === 6);
      expect(smtp.received.map((e) => e.to[0]).sort()).to.deep.equal(
        ids.map((_id, i) => `reader${i}@zulip.test`).sort(),
      );
    } finally {
      await second?.stop();
      await first.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("with email off, writes each email as a private .eml file under outbox/ and logs where", async function () {
    let log = "";
    const server = await startTestServer({}, { logger: createLogger("debug", (line) => (log += line)) });
    try {
      const realm = await server.factory.realm({});
      const id = await queueOne(server, realm.id);
      await waitFor(async () => (await emailRow(server, id))?.state === "sent");
      const dir = join(server.dataDir, "outbox");
      expect(statSync(dir).mode & 0o777).to.equal(0o700);
      const files = readdirSync(dir);
      expect(files).to.have.length(1);
      expect(files[0]).to.match(/\.eml$/);
      const path = join(dir, files[0]!);
      expect(statSync(path).mode & 0o777).to.equal(0o600);
      const email = parseEmail(["hamlet@zulip.test"], readFileSync(path, "utf8"));
      expect(email.from).to.match(/^Elsinore <noreply@/);
      expect(email.headers.get("to")).to.equal("hamlet@zulip.test");
      expect(email.subject).to.equal("Something is rotten");
      expect(email.text).to.contain("In the state of Denmark & beyond.");
      expect(email.html).to.contain("<p>In the state of Denmark &#38; beyond.</p>");
      expect(log).to.contain(`INFO email ${id}: email is off (no smtp_host); written to ${path}`);
      expect(log).not.to.contain("Denmark");
    } finally {
      await server.close();
    }
  });

  it("an email that cannot be written to outbox/ is retried, not lost or held", async function () {
    const server = await startTestServer({});
    try {
      // A file where the directory should be: writing fails.
      writeFileSync(join(server.dataDir, "outbox"), "");
      const id = await queueOne(server, null);
      await waitFor(async () => (await emailRow(server, id))?.tries === 1);
      expect(await emailRow(server, id)).to.include({ state: "queued", last_error: "internal error" });
      rmSync(join(server.dataDir, "outbox"));
      server.clock.advance(RETRY_DELAY_MS);
      await waitFor(async () => (await emailRow(server, id))?.state === "sent");
      expect(readdirSync(join(server.dataDir, "outbox"))).to.have.length(1);
    } finally {
      await server.close();
    }
  });
});
