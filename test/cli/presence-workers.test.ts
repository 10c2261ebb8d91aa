import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { basicAuth, exitedWithin, freePort, initDataDir, waitForServer } from "../helpers/cli.js";
import { clientsOnWorkers, spawnWorkers, type PinnedClient, type Reply } from "../helpers/workers.js";
import { waitFor } from "../helpers/webhook-receiver.js";

function ok(reply: Reply): Record<string, unknown> {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  return reply.body;
}

/** Presence lives in each process's memory; each reads what the others flushed (cache/presence-store.ts). */
describe("chatd serve --workers 2: presence across processes", function () {
  this.timeout(60_000);
  const FLUSH_MS = 100;
  let dir: string;
  let server: ChildProcess;
  let owner: { email: string; api_key: string };
  let w0: PinnedClient;
  let w1: PinnedClient;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "chatd-presence-workers-"));
    owner = initDataDir(dir);
    const port = await freePort();
    server = spawnWorkers(dir, port, 2, { CHATD_PRESENCE_FLUSH_INTERVAL_MS: String(FLUSH_MS) });
    await waitForServer(`http://127.0.0.1:${port}`, server);
    const clients = await clientsOnWorkers(port, basicAuth(owner.email, owner.api_key).authorization, [
      "0",
      "1",
    ]);
    w0 = clients.get("0")!;
    w1 = clients.get("1")!;
  });

  after(async () => {
    w0?.close();
    w1?.close();
    server?.kill("SIGTERM");
    if (server && (await exitedWithin(server, 15_000)) === null) server.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
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
