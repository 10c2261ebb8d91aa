import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { EventQueue } from "../../src/events/queue.js";
import { postWebhook } from "../../src/lib/webhook-http.js";
import { AllowedPrivateHosts } from "../../src/lib/webhook-targets.js";
import { queueOptions } from "../helpers/queue-options.js";

const OPTIONS = queueOptions();

describe("an event queue of several processes (volatile heartbeats)", function () {
  it("answers a heartbeat that comes before the wake-up with the pending events, never acknowledging them unseen", async function () {
    const queue = new EventQueue("q", 1, 1, OPTIONS, Date.now());
    queue.volatileHeartbeats = true;
    const poll = queue.wait(60_000);
    // The event's wake-up is a microtask; the heartbeat lands first, synchronously.
    queue.push({ type: "message", id: 7 });
    queue.push({ type: "heartbeat" });
    const answered = await poll;
    expect(answered.map((queued) => [queued.id, queued.event.type])).to.deep.equal([[0, "message"]]);
  });

  it("answers a heartbeat with the last event's ID when nothing is pending", async function () {
    const queue = new EventQueue("q", 1, 1, OPTIONS, Date.now());
    queue.volatileHeartbeats = true;
    const poll = queue.wait(60_000);
    queue.push({ type: "heartbeat" });
    expect((await poll).map((queued) => [queued.id, queued.event.type])).to.deep.equal([[-1, "heartbeat"]]);
  });
});

describe("an outgoing webhook answer longer than the bound", function () {
  let server: Server;
  let url: string;
  before(async function () {
    // Sends 2 MiB, then never ends the answer.
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(Buffer.alloc(2 << 20, 0x20));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(function () {
    server.closeAllConnections();
    server.close();
  });

  it("is cut off as an answer, not held until the timeout", async function () {
    const outcome = await postWebhook({
      url,
      body: "{}",
      contentType: "application/json",
      timeoutMs: 60_000,
      allowed: new AllowedPrivateHosts(["127.0.0.1"]),
    });
    expect(outcome.kind).to.equal("response");
    expect(outcome.kind === "response" && outcome.status).to.equal(200);
    // What was kept: the whole chunks that fit within the bound (1 MiB).
    const kept = outcome.kind === "response" ? outcome.body.length : 0;
    expect(kept).to.be.within(1 << 19, 1 << 20);
  });
});

describe("heartbeats of parked polls (one timer for all with the same interval)", function () {
  it("answers each parked poll when its own interval is over, and a poll that ended never", async function () {
    const queues = [1, 2, 3].map((n) => new EventQueue(`q${n}`, n, 1, OPTIONS, Date.now()));
    const started = performance.now();
    const first = queues[0]!.wait(40);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = queues[1]!.wait(40);
    const ended = queues[2]!.wait(40);
    queues[2]!.finishWait([]);
    expect(await ended).to.deep.equal([]);
    expect((await first).map((queued) => queued.event.type)).to.deep.equal(["heartbeat"]);
    const firstAt = performance.now() - started;
    expect((await second).map((queued) => queued.event.type)).to.deep.equal(["heartbeat"]);
    expect(performance.now() - started).to.be.at.least(59);
    expect(firstAt).to.be.at.least(39);
    expect(queues[2]!.events).to.deep.equal([]);
    // A later poll gets its heartbeat too (the timer is set again).
    const later = queues[2]!.wait(10);
    expect((await later).map((queued) => queued.event.type)).to.deep.equal(["heartbeat"]);
  });
});
