import { expect } from "chai";
import { connect, type Socket } from "node:net";
import { expectSuccess } from "../helpers/client.js";
import { register } from "../helpers/events.js";
import { sendDirect } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { dropAllCaches } from "../../src/cache/invalidations.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";

const basic = (user: TestUser) => `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString("base64")}`;

/** A long-poll over its own connection, which the test may drop; `received` is all it got. */
function rawPoll(
  server: TestServer,
  user: TestUser,
  queueId: string,
): { socket: Socket; received: () => string } {
  const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
  let text = "";
  socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
  socket.on("error", () => {});
  socket.write(
    `GET /api/v1/events?queue_id=${encodeURIComponent(queueId)}&last_event_id=-1 HTTP/1.1\r\n` +
      `Host: chatd.test\r\nAuthorization: ${basic(user)}\r\n\r\n`,
  );
  return { socket, received: () => text };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 3000) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What a parked long-poll does when its client leaves, and when it does not. */
describe("long-polls and their clients' connections", function () {
  let server: TestServer;
  let realm: TestRealm;

  before(async function () {
    server = await startTestServer({ heartbeat_interval_secs: 60 });
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  const queueOf = async (user: TestUser) =>
    (await register(user.client, { event_types: ["message"] })).queue_id as string;
  const polling = (user: TestUser, queueId: string) => server.app.events.getQueue(queueId, user.id).isPolling;

  it("stops waiting when the client disconnects, and the queue still delivers", async function () {
    const { hamlet, othello } = realm.users;
    const queueId = await queueOf(hamlet!);
    const poll = rawPoll(server, hamlet!, queueId);
    await until(() => polling(hamlet!, queueId), "the poll parks");
    poll.socket.destroy();
    await until(() => !polling(hamlet!, queueId), "the poll is released");

    const next = hamlet!.client.get("/events", { queue_id: queueId, last_event_id: -1 });
    await until(() => polling(hamlet!, queueId), "the next poll parks");
    await sendDirect(othello!, [hamlet!], "after the disconnect");
    const events = expectSuccess(await next).events as Array<{ type: string }>;
    expect(events.map((event) => event.type)).to.deep.equal(["message"]);
  });

  it("ends at once a poll whose client left before it parked", async function () {
    const { hamlet, othello } = realm.users;
    const queueId = await queueOf(hamlet!);
    const queue = server.app.events.getQueue(queueId, hamlet!.id);
    const before = queue.lastAccessMs;
    await new Promise((r) => setTimeout(r, 5));
    // Each connection is dropped as soon as its request is on the wire, and the caches are
    // dropped first: while authentication reads the database the server sees the client
    // leave, so the poll reaches the queue with its client already gone.
    dropAllCaches(server.app);
    for (let i = 0; i < 10; i++) {
      const { socket } = rawPoll(server, hamlet!, queueId);
      socket.once("connect", () => setImmediate(() => socket.destroy()));
    }
    await until(() => queue.lastAccessMs > before, "a poll reaches the queue");
    await new Promise((r) => setTimeout(r, 100));
    expect(polling(hamlet!, queueId), "no poll waits for a client that is gone").to.equal(false);
    // The queue still delivers to the next poll.
    const next = hamlet!.client.get("/events", { queue_id: queueId, last_event_id: -1 });
    await until(() => polling(hamlet!, queueId), "the next poll parks");
    await sendDirect(othello!, [hamlet!], "after the early leavers");
    const events = expectSuccess(await next).events as Array<{ type: string }>;
    expect(events.map((event) => event.type)).to.deep.equal(["message"]);
  });

  it("does not end a newer poll when an answered poll's connection closes later", async function () {
    const { hamlet, othello } = realm.users;
    const queueId = await queueOf(hamlet!);
    const first = rawPoll(server, hamlet!, queueId);
    await until(() => polling(hamlet!, queueId), "the first poll parks");
    await sendDirect(othello!, [hamlet!], "for the first poll");
    await until(() => first.received().includes("for the first poll"), "the first poll is answered");

    const second = hamlet!.client.get("/events", { queue_id: queueId, last_event_id: 0 });
    await until(() => polling(hamlet!, queueId), "the second poll parks");
    first.socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(polling(hamlet!, queueId), "the second poll still waits").to.equal(true);

    await sendDirect(othello!, [hamlet!], "for the second poll");
    const events = expectSuccess(await second).events as Array<{ id: number; type: string }>;
    expect(events.map((event) => [event.id, event.type])).to.deep.equal([[1, "message"]]);
  });
});
