import { expect } from "chai";
import { startTwoWorkers, type PinnedClient, type Reply, type TwoWorkers } from "../helpers/workers.js";
import { waitFor } from "../helpers/webhook-receiver.js";

function ok(reply: Reply): Record<string, unknown> {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  return reply.body;
}

/** Presence lives in each process's memory; each reads what the others flushed (cache/presence-store.ts). */
describe("chatd serve --workers 2: presence across processes", function () {
  this.timeout(60_000);
  const FLUSH_MS = 100;
  let workers: TwoWorkers;
  let owner: { email: string; api_key: string };
  let w0: PinnedClient;
  let w1: PinnedClient;

  before(async () => {
    workers = await startTwoWorkers("chatd-presence-workers-", {
      CHATD_PRESENCE_FLUSH_INTERVAL_MS: String(FLUSH_MS),
    });
    ({ owner, w0, w1 } = workers);
  });

  after(async () => {
    await workers?.stop();
  });

  const presences = async (client: PinnedClient) =>
    ok(await client.send("GET", "/realm/presence")).presences as Record<string, Record<string, unknown>>;

  it("a ping taken by one worker shows in the other's reads within a few flush intervals", async () => {
    // Worker 1 has read the realm's presence already: it learns of the ping from the database.
    expect(await presences(w1)).to.not.have.property(owner.email);
    ok(await w0.send("POST", "/users/me/presence", { status: "active" }));
    const start = Date.now();
    await waitFor(async () => owner.email in (await presences(w1)), 10_000);
    // Two flush intervals (one to write, one to read), and the time the requests take.
    expect(Date.now() - start).to.be.below(20 * FLUSH_MS + 2000);
    const seen = (await presences(w1))[owner.email]!;
    expect(seen).to.deep.equal((await presences(w0))[owner.email]);
    // register on the other worker includes it, and the modern format's sequence there goes on.
    const state = ok(await w1.send("POST", "/register", { fetch_event_types: ["presence"] }));
    expect(state.presences).to.have.property(owner.email);
    expect(state.presence_last_update_id).to.be.a("number").and.be.greaterThan(0);
  });
});
