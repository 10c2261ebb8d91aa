import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Knex } from "knex";
import { createKnex } from "../../src/db/knex.js";
import { basicAuth, cliIn, initDataDir, startServerProcess, type ServerProcess } from "../helpers/cli.js";
import { dataDirConfig } from "../helpers/postgres.js";
import { waitFor } from "../helpers/webhook-receiver.js";
import {
  clientsOnWorkers,
  startTwoWorkers,
  type PinnedClient,
  type Reply,
  type TwoWorkers,
} from "../helpers/workers.js";

function ok(reply: Reply): Record<string, unknown> {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  return reply.body;
}

/**
 * `serve --workers 2`: a user's event queue may live in the other worker, so who is off is
 * asked of the queue store when the batch falls due; each batch is emailed once.
 */
describe("missed-message emails with several workers", function () {
  this.timeout(60_000);
  let workers: TwoWorkers;
  let knex: Knex;
  const clients: PinnedClient[] = [];

  before(async function () {
    workers = await startTwoWorkers("chatd-missed-", { CHATD_MISSED_MESSAGE_EMAIL_DELAY_SECS: "1" });
    knex = createKnex(dataDirConfig(workers.dir));
  });
  after(async function () {
    for (const client of clients) client.close();
    await knex?.destroy();
    await workers?.stop();
  });

  /** A new member, with a client on worker 1. */
  async function member(first: string): Promise<{ id: number; email: string; w1: PinnedClient }> {
    const email = `${first}@zulip.test`;
    const password = `${first}'s password`;
    const created = ok(await workers.w0.send("POST", "/users", { email, password, full_name: first }));
    const { api_key: key } = ok(
      await workers.w0.send("POST", "/fetch_api_key", { username: email, password }),
    );
    const pinned = await clientsOnWorkers(workers.port, basicAuth(email, key as string).authorization, ["1"]);
    clients.push(...pinned.values());
    return { id: created.user_id as number, email, w1: pinned.get("1")! };
  }

  it("emails the user with no queue anywhere, not the one whose queue lives in the other worker", async () => {
    const [iago, hamlet] = [await member("Iago"), await member("Hamlet")];
    ok(await iago.w1.send("POST", "/register", {}));
    // Sent through worker 0, which holds neither queue.
    for (const to of [iago.id, hamlet.id, hamlet.id]) {
      ok(
        await workers.w0.send("POST", "/messages", {
          type: "direct",
          to: JSON.stringify([to]),
          content: `For ${to}`,
        }),
      );
    }
    await waitFor(
      async () =>
        Number((await knex("missed_message_notifications").count<{ n: number }[]>({ n: "*" }))[0]!.n) === 0,
      20_000,
    );
    const sent = await knex("emails").select<Array<{ to_address: string; subject: string }>>(
      "to_address",
      "subject",
    );
    expect(sent.map((e) => [e.to_address, e.subject])).to.deep.equal([[hamlet.email, "DMs with Desdemona"]]);
  });
});

/**
 * An admin command serves no queues, so it cannot tell who is off: what it sends is
 * written unseen, and the server asks its own queues when the batch falls due.
 */
describe("missed-message emails for messages an admin command sends", function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess | undefined;
  let knex: Knex | undefined;

  before(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-missed-cli-"));
  });
  after(async function () {
    await knex?.destroy();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("emails the user who is off, not the one with a queue on the server", async () => {
    const chatd = cliIn(dataDir);
    const owner = initDataDir(dataDir);
    const hamlet = ["--email", "hamlet@zulip.test", "--full-name", "Hamlet", "--password", "to-be-or-not"];
    const created = chatd(["user", "create", "--no-input", ...hamlet]);
    expect(created.code, created.stderr).to.equal(0);
    server = await startServerProcess(dataDir, { env: { CHATD_MISSED_MESSAGE_EMAIL_DELAY_SECS: "1" } });
    const registered = await fetch(`${server.url}/api/v1/register`, {
      method: "POST",
      headers: basicAuth(owner.email, owner.api_key),
    });
    expect(registered.status).to.equal(200);
    const to = `${owner.email},hamlet@zulip.test`;
    const sent = chatd(["message", "send", "--to", to, "--content", "From the command line"]);
    expect(sent.code, sent.stderr).to.equal(0);
    knex = createKnex(dataDirConfig(dataDir));
    const db = knex;
    const left = async () =>
      Number((await db("missed_message_notifications").count<{ n: number }[]>({ n: "*" }))[0]!.n);
    await waitFor(async () => (await left()) === 0, 20_000);
    const emails = await db("emails").select<Array<{ to_address: string; text_body: string }>>(
      "to_address",
      "text_body",
    );
    expect(emails.map((e) => e.to_address)).to.deep.equal(["hamlet@zulip.test"]);
    expect(emails[0]!.text_body).to.include("From the command line");
  });
});
