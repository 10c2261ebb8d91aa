import { readdirSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { Client, expectSuccess } from "../helpers/client.js";
import { basicAuth, initDataDir, startServerProcess, type ServerProcess } from "../helpers/cli.js";
import { bombPng, hostileUploadsInFlight } from "../helpers/hostile-uploads.js";
import { messagesAfter, userWithKey } from "./fault-setup.js";

/**
 * Part (c) of `npm run test:faults`: graceful restarts under keep-alive long-polls. Many
 * queues (over several users) each have a poller that, like the Python and JS Zulip clients,
 * re-polls at once on the same keep-alive connection; messages are sent all along; the server
 * gets SIGTERM while serving hostile uploads (bodies hanging mid-way, floods of file parts,
 * decompression-bomb images waiting for image work: test/helpers/hostile-uploads.ts). It must
 * exit 0 within `shutdown_timeout_secs`, leave no temporary upload file, and start again on
 * the same port. Every queue must survive every restart, and receive every message's event
 * exactly once, in order.
 */

export interface RestartFigures {
  restarts: number;
  queues: number;
  queuesKept: number;
  messages: number;
  /** Events every queue should have had (messages x queues). */
  events: number;
  eventsLost: number;
  duplicates: number;
  reordered: number;
  requests: number;
  serverErrors: number;
  slowestExitSecs: number;
  failures: string[];
}

/** A loaded, shared machine may take long to start a server (a hang still fails). */
const START_TIMEOUT_MS = 60_000;
const QUEUES_PER_USER = 50;
const SHUTDOWN_TIMEOUT_SECS = 10;
const SENDERS = 3;

interface PollAnswer {
  status: number;
  body: { events?: Array<{ id: number; type: string; message?: { id: number } }>; code?: string };
}

function get(agent: Agent, url: string, auth: string): Promise<PollAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { authorization: auth } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as PollAnswer["body"] });
        } catch {
          resolve({ status: res.statusCode ?? 0, body: { code: "an answer that is not JSON" } });
        }
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** One queue's client: one keep-alive connection, re-polling at once, retrying while the server is away. */
class Poller {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  readonly messageIds: number[] = [];
  duplicates = 0;
  requests = 0;
  serverErrors = 0;
  /** Why the queue stopped being polled (BAD_EVENT_QUEUE_ID: it was lost), or null. */
  lostWith: string | null = null;
  private lastEventId = -1;
  private running = true;
  private readonly done: Promise<void>;

  constructor(
    private readonly url: () => string,
    private readonly auth: string,
    readonly queueId: string,
  ) {
    this.done = this.loop();
  }

  get lastMessageId(): number {
    return this.messageIds[this.messageIds.length - 1] ?? 0;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const query = new URLSearchParams({ queue_id: this.queueId, last_event_id: String(this.lastEventId) });
      let answer: PollAnswer;
      try {
        this.requests++;
        answer = await get(this.agent, `${this.url()}/api/v1/events?${query.toString()}`, this.auth);
      } catch {
        if (this.running) await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
        continue; // the server is restarting
      }
      if (answer.status >= 500) this.serverErrors++;
      if (answer.status !== 200 || !answer.body.events) {
        this.lostWith = `${answer.status} ${answer.body.code ?? ""}`;
        return;
      }
      for (const event of answer.body.events ?? []) {
        if (event.id <= this.lastEventId) {
          this.duplicates++;
          continue;
        }
        this.lastEventId = event.id;
        if (event.type === "message") this.messageIds.push(event.message!.id);
      }
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.agent.destroy();
    await this.done;
  }
}

/** One user's messages to the general channel, one after the other, until stopped (through restarts). */
class Sender {
  requests = 0;
  serverErrors = 0;
  private running = true;
  private readonly done: Promise<void>;

  constructor(
    private readonly url: () => string,
    private readonly auth: string,
    private readonly pauseMs: number,
  ) {
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    for (let n = 0; this.running; n++) {
      try {
        this.requests++;
        const res = await fetch(`${this.url()}/api/v1/messages`, {
          method: "POST",
          headers: { authorization: this.auth },
          body: new URLSearchParams({
            type: "stream",
            to: "general",
            topic: "restarts",
            content: `event ${n}`,
          }),
        });
        if (res.status >= 500) this.serverErrors++;
        await res.arrayBuffer();
      } catch {
        // the server is restarting
      }
      await new Promise((r) => setTimeout(r, this.pauseMs));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

/** The IDs of the messages of the general channel after `after`, in order. */
async function generalMessageIds(owner: Client, after: number): Promise<number[]> {
  const messages = await messagesAfter(owner, after, {
    narrow: [{ operator: "stream", operand: "general" }],
  });
  return messages.map((message) => message.id);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function restartCycles(
  dataDir: string,
  driver: string,
  options: { queues: number; restarts: number; phaseSecs: number; log: (line: string) => void },
): Promise<RestartFigures> {
  const figures: RestartFigures = {
    restarts: 0,
    queues: 0,
    queuesKept: 0,
    messages: 0,
    events: 0,
    eventsLost: 0,
    duplicates: 0,
    reordered: 0,
    requests: 0,
    serverErrors: 0,
    slowestExitSecs: 0,
    failures: [],
  };
  const env = {
    CHATD_DB_DRIVER: driver,
    CHATD_LOG_LEVEL: "error",
    CHATD_SHUTDOWN_TIMEOUT_SECS: String(SHUTDOWN_TIMEOUT_SECS),
  };
  const owner = initDataDir(dataDir);
  let server: ServerProcess = await startServerProcess(dataDir, { env, startTimeoutMs: START_TIMEOUT_MS });
  const port = Number(new URL(server.url).port);
  // The same URL throughout: every restart listens on the same port.
  const url = () => server.url;
  const ownerClient = new Client(server.url, { email: owner.email, apiKey: owner.api_key });
  const pollers: Poller[] = [];
  let senders: Sender[] = [];
  try {
    // Several users, each with at most QUEUES_PER_USER queues (under the per-user bounds).
    const users = [{ email: owner.email, apiKey: owner.api_key }];
    for (let i = 1; users.length * QUEUES_PER_USER < options.queues; i++) {
      const user = await userWithKey(
        ownerClient,
        `poller${i}@zulip.test`,
        `poller-${i}-password`,
        `Poller ${i}`,
      );
      users.push({ email: user.email, apiKey: user.apiKey });
    }
    const before = Math.max(0, ...(await generalMessageIds(ownerClient, 0)));
    for (let i = 0; i < options.queues; i++) {
      const user = users[i % users.length]!;
      const client = new Client(server.url, user);
      const registered = expectSuccess(await client.post("/register", { event_types: ["message"] }));
      const auth = basicAuth(user.email, user.apiKey).authorization;
      pollers.push(new Poller(url, auth, registered.queue_id as string));
    }
    figures.queues = pollers.length;
    // Concurrent senders, so commits interleave and events must still come in message order.
    senders = users
      .slice(0, SENDERS)
      .map((user) => new Sender(url, basicAuth(user.email, user.apiKey).authorization, 20));

    const ownerAuth = basicAuth(owner.email, owner.api_key).authorization;
    const tempDir = join(dataDir, "uploads", "tmp");
    const bomb = await bombPng();
    for (let restart = 1; restart <= options.restarts; restart++) {
      await sleep(options.phaseSecs * 1000);
      const hostile = await hostileUploadsInFlight(server.url, ownerAuth, tempDir, bomb);
      const stopping = performance.now();
      const code = await server.stop();
      const seconds = (performance.now() - stopping) / 1000;
      figures.slowestExitSecs = Math.max(figures.slowestExitSecs, seconds);
      figures.serverErrors += await hostile.finish();
      if (code !== 0) figures.failures.push(`restart ${restart}: SIGTERM exit code ${code}`);
      if (seconds > SHUTDOWN_TIMEOUT_SECS) {
        figures.failures.push(`restart ${restart}: exit took ${seconds.toFixed(1)} s`);
      }
      const leftOver = readdirSync(tempDir).length;
      if (leftOver > 0) figures.failures.push(`restart ${restart}: ${leftOver} temporary upload files left`);
      server = await startServerProcess(dataDir, { env, port, startTimeoutMs: START_TIMEOUT_MS });
      figures.restarts++;
      const lostSoFar = pollers.filter((poller) => poller.lostWith !== null).length;
      options.log(
        `  ${driver}: restart ${restart}: exited ${code} in ${seconds.toFixed(1)} s, ${lostSoFar} queues lost`,
      );
    }
    await sleep(options.phaseSecs * 1000);
    await Promise.all(senders.map((sender) => sender.stop()));

    const owned = new Client(server.url, { email: owner.email, apiKey: owner.api_key });
    const expected = await generalMessageIds(owned, before);
    const last = expected[expected.length - 1] ?? 0;
    // Every live queue catches up with the last message (or the wait gives up).
    for (let i = 0; i < 600; i++) {
      if (pollers.every((poller) => poller.lostWith !== null || poller.lastMessageId >= last)) break;
      await sleep(100);
    }
    figures.messages = expected.length;
    figures.events = expected.length * pollers.length;
    for (const poller of pollers) {
      figures.requests += poller.requests;
      figures.serverErrors += poller.serverErrors;
      figures.duplicates += poller.duplicates;
      // An event at or below the acknowledged ID came again: the queue re-sent it.
      if (poller.duplicates > 0)
        figures.failures.push(`queue ${poller.queueId}: ${poller.duplicates} events re-sent`);
      if (poller.lostWith !== null) {
        figures.failures.push(`queue ${poller.queueId} lost: ${poller.lostWith}`);
      } else figures.queuesKept++;
      const received = new Set(poller.messageIds);
      const missing = expected.filter((id) => !received.has(id)).length;
      const repeated = poller.messageIds.length - received.size;
      const outOfOrder = poller.messageIds.filter((id, i) => i > 0 && id <= poller.messageIds[i - 1]!).length;
      figures.eventsLost += missing;
      figures.duplicates += repeated;
      figures.reordered += outOfOrder;
      if (missing + repeated + outOfOrder > 0 && poller.lostWith === null) {
        figures.failures.push(
          `queue ${poller.queueId}: ${missing} events lost, ${repeated} repeated, ${outOfOrder} out of order`,
        );
      }
    }
  } finally {
    await Promise.all(senders.map((sender) => sender.stop()));
    await Promise.all(pollers.map((poller) => poller.stop()));
    const code = await server.stop();
    if (code !== 0) figures.failures.push(`the server exited with ${code} on the last SIGTERM`);
    for (const sender of senders) {
      figures.requests += sender.requests;
      figures.serverErrors += sender.serverErrors;
    }
  }
  return figures;
}
