import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { Client, expectSuccess } from "../helpers/client.js";
import {
  basicAuth,
  exited,
  exitedWithin,
  initDataDir,
  startServerProcess,
  type ServerProcess,
} from "../helpers/cli.js";
import { bombPng, hostileUploadsInFlight, imageBody, postMultipart } from "../helpers/hostile-uploads.js";

const SHUTDOWN_TIMEOUT_SECS = 2;
/** What the process may take beyond shutdown_timeout_secs (src/cli/shutdown-watchdog.ts). */
const EXIT_MARGIN_MS = 3000;

describe("graceful stop with hostile uploads in flight", function () {
  this.timeout(120_000);
  let dataDir: string;
  let servers: ServerProcess[] = [];

  beforeEach(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-hostile-stop-"));
  });
  afterEach(async function () {
    for (const server of servers) {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      await exited(server.child);
    }
    servers = [];
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("exits 0 within shutdown_timeout_secs with bodies hanging and image bombs being decoded; acknowledged writes survive", async function () {
    const owner = initDataDir(dataDir);
    const env = { CHATD_SHUTDOWN_TIMEOUT_SECS: String(SHUTDOWN_TIMEOUT_SECS) };
    const server = await startServerProcess(dataDir, { env });
    servers.push(server);
    const credentials = { email: owner.email, apiKey: owner.api_key };
    const auth = basicAuth(owner.email, owner.api_key).authorization;
    const client = new Client(server.url, credentials);
    const send = async (content: string) =>
      expectSuccess(
        await client.post("/messages", { type: "direct", to: JSON.stringify([owner.user_id]), content }),
      ).id as number;

    // Acknowledged before the stop: a queue, messages, an uploaded file.
    const queueId = expectSuccess(await client.post("/register", { event_types: ["message"] }))
      .queue_id as string;
    const sent = [await send("before 1"), await send("before 2")];
    const fileBytes = randomBytes(5000);
    const uploaded = await postMultipart(server.url, "/user_uploads", auth, imageBody(fileBytes));
    expect(uploaded?.status, JSON.stringify(uploaded?.body)).to.equal(200);
    sent.push(await send("just before the uploads"));

    // In flight when the signal comes: bodies stopped mid-way, floods of file parts, and
    // avatars of 88 million pixels each, received whole and waiting for seconds of image work.
    const tempDir = join(dataDir, "uploads", "tmp");
    const hostile = await hostileUploadsInFlight(server.url, auth, tempDir, await bombPng());
    server.child.kill("SIGTERM");
    const code = await exitedWithin(server.child, SHUTDOWN_TIMEOUT_SECS * 1000 + EXIT_MARGIN_MS);
    expect(code, `exit code (null: still running); log:\n${server.log().slice(-2000)}`).to.equal(0);
    // Each answered (refused, done) or cut; none failed with a 5xx.
    expect(await hostile.finish()).to.equal(0);

    const again = await startServerProcess(dataDir);
    servers.push(again);
    const restarted = new Client(again.url, credentials);
    const stored = expectSuccess(
      await restarted.get("/messages", { anchor: "newest", num_before: 20, num_after: 0 }),
    ).messages as Array<{ id: number }>;
    expect(stored.map((message) => message.id)).to.include.members(sent);
    const events = expectSuccess(
      await restarted.get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true }),
    ).events as Array<{ type: string; message?: { id: number } }>;
    expect(
      events.filter((event) => event.type === "message").map((event) => event.message!.id),
    ).to.deep.equal(sent);
    const file = await fetch(new URL(uploaded!.body.url as string, again.url), {
      headers: { authorization: auth },
    });
    expect(Buffer.from(await file.arrayBuffer()).equals(fileBytes)).to.equal(true);
    // Nothing of the refused, cut or abandoned uploads is left behind.
    expect(readdirSync(tempDir)).to.deep.equal([]);
    expect(await again.stop()).to.equal(0);
  });
});
