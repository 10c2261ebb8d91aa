import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { cliDatabaseEnv, onPostgres } from "../helpers/postgres.js";
import { basicAuth, exitedWithin, freePort, initDataDir, spawnServe, waitForServer } from "../helpers/cli.js";
import { PinnedClient, type Reply } from "../helpers/workers.js";
import { waitFor, WebhookReceiver } from "../helpers/webhook-receiver.js";

function ok(reply: Reply): Record<string, unknown> {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  return reply.body;
}

/**
 * Two machines' `chatd serve` over one PostgreSQL both run the delivery timers: each
 * delivery is claimed first (db/claims.ts), so each webhook and scheduled message goes
 * out exactly once. (A dead claimer's lease: test/api/work-claims.test.ts.)
 */
describe("one chatd serve per machine over one PostgreSQL: queued work is done once", function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  const servers: ChildProcess[] = [];
  let receiver: WebhookReceiver;
  let hookUrl: string;
  let onA: PinnedClient;
  let onB: PinnedClient;

  before(async function () {
    if (!onPostgres()) {
      this.test!.parent!.title += " (PostgreSQL only: SQLite serves one data directory)";
      this.skip();
    }
    receiver = new WebhookReceiver();
    hookUrl = await receiver.start();
    const [a, b] = [0, 1].map(() => mkdtempSync(join(tmpdir(), "chatd-claims-")));
    dirs.push(a!, b!);
    const owner = initDataDir(a!);
    const env = {
      ...cliDatabaseEnv(["--data-dir", a!]),
      CHATD_WEBHOOK_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
      CHATD_RATE_LIMITING: "false",
    };
    const ports: number[] = [];
    for (const dir of [a!, b!]) {
      const port = await freePort();
      const server = spawnServe(dir, port, env);
      servers.push(server);
      await waitForServer(`http://127.0.0.1:${port}`, server);
      ports.push(port);
    }
    [onA, onB] = ports.map(
      (port) => new PinnedClient(port, basicAuth(owner.email, owner.api_key).authorization),
    ) as [PinnedClient, PinnedClient];
  });

  after(async () => {
    onA?.close();
    onB?.close();
    for (const server of servers) {
      server.kill("SIGTERM");
      if ((await exitedWithin(server, 15_000)) === null) server.kill("SIGKILL");
    }
    await receiver?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const clients = () => [onA, onB, onA, onB];

  it("delivers each outgoing webhook exactly once", async () => {
    const bot = ok(
      await onA.send("POST", "/bots", {
        full_name: "Echo",
        short_name: "echo",
        bot_type: 3,
        payload_url: JSON.stringify(hookUrl),
      }),
    ).user_id as number;
    // Sent through both servers at once: both timers find deliveries due together.
    const sent: number[] = [];
    for (let round = 0; round < 10; round++) {
      const replies = await Promise.all(
        clients().map((client, i) =>
          client.send("POST", "/messages", {
            type: "private",
            to: JSON.stringify([bot]),
            content: `${round}.${i}`,
          }),
        ),
      );
      sent.push(...replies.map((reply) => ok(reply).id as number));
    }
    const delivered = () =>
      receiver.requests.map(
        (request) => (JSON.parse(request.body) as { message: { id: number } }).message.id,
      );
    await waitFor(() => new Set(delivered()).size === sent.length, 30_000);
    // Long enough for a second delivery of any of them to arrive (a timer wakes every second).
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(delivered().sort((x, y) => x - y)).to.deep.equal(sent.sort((x, y) => x - y));
  });

  it("sends each scheduled message exactly once", async () => {
    const general = ok(await onA.send("GET", "/get_stream_id", { stream: "general" })).stream_id as number;
    const dueAt = Math.floor(Date.now() / 1000) + 3;
    const contents: string[] = [];
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        clients().map((client, i) => {
          const content = `scheduled ${round}.${i}`;
          contents.push(content);
          return client
            .send("POST", "/scheduled_messages", {
              type: "stream",
              to: general,
              topic: "claims",
              content,
              scheduled_delivery_timestamp: dueAt,
            })
            .then(ok);
        }),
      );
    }
    const pending = async () =>
      (ok(await onB.send("GET", "/scheduled_messages")).scheduled_messages as unknown[]).length;
    await waitFor(async () => (await pending()) === 0, 30_000);
    const messages = ok(
      await onA.send("GET", "/messages", {
        anchor: "newest",
        num_before: 100,
        num_after: 0,
        narrow: [
          { operator: "channel", operand: "general" },
          { operator: "topic", operand: "claims" },
        ],
        apply_markdown: false,
      }),
    ).messages as Array<{ content: string }>;
    expect(messages.map((m) => m.content).sort()).to.deep.equal(contents.sort());
  });
});
