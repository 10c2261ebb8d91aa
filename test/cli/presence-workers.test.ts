import { expect } from "chai";
import { basicAuth } from "../helpers/cli.js";
import {
  clientsOnWorkers,
  startTwoWorkers,
  type PinnedClient,
  type Reply,
  type TwoWorkers,
} from "../helpers/workers.js";
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

  it("numbers presence changes in one sequence: a client's last_update_id means the same on both", async () => {
    // A second person, with a client on each worker.
    const email = "iago@zulip.test";
    const password = "iago's password";
    const created = ok(await w0.send("POST", "/users", { email, password, full_name: "Iago" }));
    const iagoId = created.user_id as number;
    const { api_key: key } = ok(await w0.send("POST", "/fetch_api_key", { username: email, password }));
    const iago = await clientsOnWorkers(workers.port, basicAuth(email, key as string).authorization, [
      "0",
      "1",
    ]);
    const [iago0, iago1] = [iago.get("0")!, iago.get("1")!];
    try {
      /** Worker `client`'s modern presences map and presence_last_update_id, as POST /register gives them. */
      const state = async (client: PinnedClient) => {
        const body = ok(
          await client.send("POST", "/register", { fetch_event_types: ["presence"], slim_presence: true }),
        );
        return { presences: body.presences as Record<string, unknown>, last: body.presence_last_update_id };
      };
      // Two changes of iago on worker 1 (within a flush interval, most likely), one of the owner's
      // on worker 0: a process numbering what it learns of would now be ahead of the other.
      ok(await iago1.send("POST", "/users/me/presence", { status: "active" }));
      ok(await iago1.send("PATCH", "/settings", { presence_enabled: false }));
      ok(await w0.send("POST", "/users/me/presence", { status: "active" }));
      const owner0 = String((ok(await w0.send("GET", "/users/me")) as { user_id: number }).user_id);
      const both = (s: { presences: Record<string, unknown> }) =>
        owner0 in s.presences && String(iagoId) in s.presences;
      await waitFor(async () => both(await state(w0)) && both(await state(w1)), 10_000);
      // Whatever either flushed is read by both within an interval.
      await new Promise((resolve) => setTimeout(resolve, 5 * FLUSH_MS));
      const [s0, s1] = [await state(w0), await state(w1)];
      expect(s0).to.deep.equal(s1);
      const last = s1.last as number;
      // A change taken by worker 1, asked for on worker 0 with worker 1's number: it arrives.
      ok(await iago1.send("PATCH", "/settings", { presence_enabled: true }));
      const since = async (client: PinnedClient) =>
        ok(await client.send("POST", "/users/me/presence", { status: "active", last_update_id: last }));
      await waitFor(async () => String(iagoId) in ((await since(w0)).presences as object), 10_000);
      await waitFor(async () => String(iagoId) in ((await since(w1)).presences as object), 10_000);
      const [d0, d1] = [await since(w0), await since(w1)];
      expect(Object.keys(d0.presences as object)).to.deep.equal([String(iagoId)]);
      expect(d0.presences).to.deep.equal(d1.presences);
      expect(d0.presence_last_update_id).to.equal(d1.presence_last_update_id);
      expect(d0.presence_last_update_id).to.be.greaterThan(last);
      // iago's own worker 0 reads the same.
      expect((await state(iago0)).last).to.equal(d0.presence_last_update_id);
    } finally {
      for (const client of iago.values()) client.close();
    }
  });
});
