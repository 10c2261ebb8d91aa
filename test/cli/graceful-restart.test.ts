import type { ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { exited, exitedWithin, freePort, initDataDir, spawnServe, waitForServer } from "../helpers/cli.js";

interface Owner {
  email: string;
  api_key: string;
}

/** One GET over the shared keep-alive agent: status, the Connection header and the body. */
function get(agent: Agent, url: string, auth: string) {
  return new Promise<{ status: number; connection: string | undefined; body: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = request(url, { agent, headers: { authorization: auth } }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            connection: res.headers.connection,
            body: JSON.parse(text) as Record<string, unknown>,
          }),
        );
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end();
    },
  );
}

/**
 * A client like the Python and JS Zulip clients: one keep-alive connection, re-polling
 * at once after every answer, retrying while the server is away.
 */
class KeepAlivePoller {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  readonly messageIds: number[] = [];
  readonly errors: unknown[] = [];
  responses = 0;
  closeHeaders = 0;
  private lastEventId = -1;
  private running = true;
  readonly done: Promise<void>;

  constructor(
    private readonly url: string,
    private readonly auth: string,
    private readonly queueId: string,
  ) {
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const query = new URLSearchParams({ queue_id: this.queueId, last_event_id: String(this.lastEventId) });
      try {
        const res = await get(this.agent, `${this.url}/api/v1/events?${query.toString()}`, this.auth);
        this.responses++;
        if (res.connection === "close") this.closeHeaders++;
        if (res.status !== 200) {
          this.errors.push(res.body);
          return;
        }
        for (const event of res.body.events as Array<{
          id: number;
          type: string;
          message?: { id: number };
        }>) {
          if (event.type === "message") this.messageIds.push(event.message!.id);
          this.lastEventId = Math.max(this.lastEventId, event.id);
        }
      } catch {
        await new Promise((r) => setTimeout(r, 50)); // server restarting
      }
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.agent.destroy();
    await this.done;
  }
}

describe("graceful restart with keep-alive long-polls", function () {
  this.timeout(60_000);
  let dataDir: string;
  let child: ChildProcess | null = null;

  beforeEach(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-restart-"));
  });
  afterEach(async function () {
    if (child && child.exitCode === null) {
      child.kill("SIGKILL");
      await exited(child);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("SIGTERM exits 0 promptly, and the same queue continues after restart with no event lost or repeated", async function () {
    const owner: Owner = initDataDir(dataDir);
    writeFileSync(join(dataDir, "settings.json"), JSON.stringify({ shutdown_timeout_secs: 5 }));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const auth = `Basic ${Buffer.from(`${owner.email}:${owner.api_key}`).toString("base64")}`;
    const post = async (path: string, params: Record<string, string>) =>
      (await (
        await fetch(`${url}/api/v1${path}`, {
          method: "POST",
          headers: { authorization: auth },
          body: new URLSearchParams(params),
        })
      ).json()) as Record<string, unknown>;
    const sent: number[] = [];
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const res = await post("/messages", {
          type: "direct",
          to: JSON.stringify([owner.email]),
          content: `note ${sent.length}`,
        });
        sent.push(res.id as number);
      }
    };

    child = spawnServe(dataDir, port);
    await waitForServer(url, child);
    const queueId = (await post("/register", { event_types: '["message"]' })).queue_id as string;
    const poller = new KeepAlivePoller(url, auth, queueId);
    // A queue nothing is sent to: its poll is parked when the signal comes (the busy
    // poller's may be between two polls, its idle connection then simply closed).
    const idleQueueId = (await post("/register", { event_types: '["realm_emoji"]' })).queue_id as string;
    const idle = new KeepAlivePoller(url, auth, idleQueueId);
    const seenAll = async () => {
      for (let i = 0; i < 200 && poller.messageIds.length < sent.length; i++) {
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    try {
      await send(5);
      await seenAll();
      // Acknowledged but perhaps not yet delivered when the signal arrives.
      await send(3);
      expect(idle.responses, "the idle poll is still parked").to.equal(0);
      const started = Date.now();
      child.kill("SIGTERM");
      expect(await exitedWithin(child, 8000), "exit code within 8 s of SIGTERM").to.equal(0);
      expect(Date.now() - started).to.be.below(5000);
      expect(idle.closeHeaders, "the parked poll answered with Connection: close").to.equal(1);
      const responsesWhileDown = poller.responses;

      child = spawnServe(dataDir, port);
      await waitForServer(url, child);
      await send(2);
      await seenAll();
      expect(poller.responses).to.be.above(responsesWhileDown);
      expect(poller.errors).to.deep.equal([]);
      expect(idle.errors).to.deep.equal([]);
      expect(poller.messageIds).to.deep.equal(sent);
    } finally {
      await poller.stop();
      await idle.stop();
    }
    child.kill("SIGTERM");
    expect(await exitedWithin(child, 8000)).to.equal(0);
  });
});
