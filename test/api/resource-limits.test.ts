import { request as httpRequest, type ClientRequest } from "node:http";
import { expect } from "chai";
import { expectError, expectSuccess, type ApiResponse } from "../helpers/client.js";
import { pendingEvents, register } from "../helpers/events.js";
import { sendDirect } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";

/** Bounded resources: queues and parked polls per user, queued events, bodies being parsed. */
describe("resource limits", function () {
  let server: TestServer;
  let realm: TestRealm;

  before(async function () {
    server = await startTestServer({
      heartbeat_interval_secs: 60,
      max_queues_per_user: 3,
      max_parked_polls_per_user: 2,
      max_total_queued_events: 100,
      max_concurrent_body_parses: 1,
    });
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  const queueOf = async (user: TestUser) =>
    (await register(user.client, { event_types: ["message"] })).queue_id as string;
  const expectGone = async (user: TestUser, queueId: string) =>
    expectError(
      await user.client.get("/events", { queue_id: queueId, dont_block: true }),
      400,
      `Bad event queue ID: ${queueId}`,
      "BAD_EVENT_QUEUE_ID",
    );
  const deleteQueue = async (user: TestUser, queueId: string) => {
    expectSuccess(await user.client.delete("/events", { queue_id: queueId }));
  };

  it("drops a user's least recently polled queue when they register one too many", async function () {
    const { hamlet, othello } = realm.users;
    const others = [await queueOf(othello!), await queueOf(othello!)];
    const first = await queueOf(hamlet!);
    server.clock.advance(1000);
    const second = await queueOf(hamlet!);
    server.clock.advance(1000);
    const third = await queueOf(hamlet!);
    server.clock.advance(1000);
    await pendingEvents(hamlet!.client, first); // now polled most recently
    const fourth = await queueOf(hamlet!);

    await expectGone(hamlet!, second);
    for (const queueId of [first, third, fourth]) await pendingEvents(hamlet!.client, queueId);
    for (const queueId of others) await pendingEvents(othello!.client, queueId);
    for (const queueId of [first, third, fourth]) await deleteQueue(hamlet!, queueId);
    for (const queueId of others) await deleteQueue(othello!, queueId);
  });

  it("answers a user's oldest parked poll with a heartbeat when they park one too many", async function () {
    const { hamlet, othello } = realm.users;
    const queues = [await queueOf(hamlet!), await queueOf(hamlet!), await queueOf(hamlet!)];
    const otherQueue = await queueOf(othello!);
    const answered: string[] = [];
    const poll = (user: TestUser, queueId: string) =>
      user.client.get("/events", { queue_id: queueId }).then((res) => {
        answered.push(queueId);
        return res;
      });
    const settle = () => new Promise((r) => setTimeout(r, 150));

    const otherPoll = poll(othello!, otherQueue);
    const oldest = poll(hamlet!, queues[0]!);
    await settle();
    const middle = poll(hamlet!, queues[1]!);
    await settle();
    expect(answered, "within the limit, every poll waits").to.deep.equal([]);
    const newest = poll(hamlet!, queues[2]!);

    const events = expectSuccess(await oldest).events as Array<{ type: string }>;
    expect(events.map((event) => event.type)).to.deep.equal(["heartbeat"]);
    await settle();
    expect(answered, "only the oldest poll was answered").to.deep.equal([queues[0]]);

    for (const queueId of queues) await deleteQueue(hamlet!, queueId);
    await deleteQueue(othello!, otherQueue);
    for (const res of await Promise.all([middle, newest, otherPoll])) expectSuccess(res);
  });

  it("drops the queues holding the most events when all queues together hold too many", async function () {
    const { hamlet, othello, cordelia } = realm.users;
    const stalled = await queueOf(hamlet!);
    const healthy = await queueOf(othello!);
    for (let i = 0; i < 70; i++) await sendDirect(cordelia!, [hamlet!], `to hamlet ${i}`);
    expect(server.app.events.queuedEvents).to.equal(70);
    for (let i = 0; i < 40; i++) await sendDirect(cordelia!, [othello!], `to othello ${i}`);

    await expectGone(hamlet!, stalled);
    expect(await pendingEvents(othello!.client, healthy)).to.have.lengthOf(40);
    expect(server.app.events.queuedEvents).to.equal(40);
    await deleteQueue(othello!, healthy);
    expect(server.app.events.queuedEvents).to.equal(0);
  });

  it("parses a bounded number of bodies at once and refuses requests beyond those waiting", async function () {
    const { hamlet } = realm.users;
    // One body being read, ten waiting their turn (max_concurrent_body_parses: 1).
    const slow = Array.from({ length: 11 }, () => partialPost(server.url, "/api/v1/messages"));
    await new Promise((r) => setTimeout(r, 400));

    const refused = await hamlet!.client.post("/users/me/presence", { status: "active" });
    expectError(refused, 429, "API usage exceeded rate limit", "RATE_LIMIT_HIT");
    expect((refused.body as Record<string, unknown>)["retry-after"]).to.equal(1);
    expect(refused.headers.get("retry-after")).to.equal("1");

    for (const request of slow) request.finish();
    for (const { response } of slow) {
      const res = await response;
      expect(res.status).to.equal(401); // the bodies were read, then authentication ran
      expect(res.body).to.include({ result: "error" });
    }
    expectSuccess(await hamlet!.client.post("/users/me/presence", { status: "active" }));
  });
});

/** A POST whose body arrives in two parts: headers and a first chunk now, the rest on finish(). */
function partialPost(baseUrl: string, path: string): { finish(): void; response: Promise<ApiResponse> } {
  const body = "type=direct&to=%5B%5D&content=hello";
  let req: ClientRequest;
  const response = new Promise<ApiResponse>((resolve, reject) => {
    req = httpRequest(
      new URL(path, baseUrl),
      {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "content-length": Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: new Headers(),
            body: JSON.parse(text),
          }),
        );
      },
    );
    req.on("error", reject);
    req.write(body.slice(0, 5));
  });
  return { finish: () => req.end(body.slice(5)), response };
}
