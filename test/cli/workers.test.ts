import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { cliDatabaseEnv, onPostgres, sqliteOnly } from "../helpers/postgres.js";
import {
  basicAuth,
  exitedWithin,
  freePort,
  initDataDir,
  chatdSync,
  spawnServe,
  waitForServer,
} from "../helpers/cli.js";
import {
  clientsOnWorkers,
  PinnedClient,
  startTwoWorkers,
  workerPid,
  type Reply,
  type TwoWorkers,
} from "../helpers/workers.js";

type Event = Record<string, unknown> & { id: number; type: string };

function ok(reply: Reply): Record<string, unknown> {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  return reply.body;
}

/** Long-polls (on `client`) until an event other than a heartbeat arrives; acknowledges nothing. */
async function nextEvents(client: PinnedClient, queueId: string, lastEventId: number): Promise<Event[]> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const events = ok(await client.send("GET", "/events", { queue_id: queueId, last_event_id: lastEventId }))
      .events as Event[];
    const real = events.filter((event) => event.type !== "heartbeat");
    if (real.length > 0) return real;
  }
  throw new Error("no event arrived");
}

describe("chatd serve --workers on SQLite", function () {
  this.timeout(60_000);

  it("is refused with the reason and the way round it, having started nothing", async function () {
    sqliteOnly(this, "PostgreSQL runs several workers without being asked");
    const dir = mkdtempSync(join(tmpdir(), "chatd-workers-"));
    try {
      const port = await freePort();
      const result = chatdSync(["--data-dir", dir, "serve", "--port", String(port), "--workers", "2"], {
        env: { CHATD_SQLITE_WORKERS: "" },
      });
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include("--workers 2 is refused on SQLite");
      expect(result.stderr).to.include("CHATD_SQLITE_WORKERS=1");
      expect(readdirSync(dir)).to.deep.equal([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a --workers that is not a whole number from 1 to 64", () => {
    for (const bad of ["0", "65", "two", "1.5"]) {
      const result = chatdSync(["serve", "--workers", bad]);
      expect(result.code, bad).to.equal(1);
      expect(result.stderr).to.include("--workers must be a whole number from 1 to 64");
    }
  });
});

describe("chatd serve --workers 2: events and queues across processes", function () {
  this.timeout(120_000);
  let workers: TwoWorkers;
  let dir: string;
  let port: number;
  let server: ChildProcess;
  let owner: { email: string; api_key: string };
  let w0: PinnedClient;
  let w1: PinnedClient;

  before(async () => {
    // A heartbeat every few seconds keeps idle long-polls short.
    // The load test sends as fast as it can.
    workers = await startTwoWorkers("chatd-workers-", {
      CHATD_HEARTBEAT_INTERVAL_SECS: "5",
      CHATD_RATE_LIMITING: "false",
    });
    ({ dir, port, server, owner, w0, w1 } = workers);
  });

  after(async () => {
    await workers?.stop();
  });

  const register = async (client: PinnedClient, eventTypes: string[]) => {
    const state = ok(await client.send("POST", "/register", { event_types: eventTypes }));
    expect(client.worker).to.be.a("string");
    return { queueId: state.queue_id as string, lastEventId: state.last_event_id as number };
  };

  const sendMessage = async (client: PinnedClient, content: string) =>
    ok(await client.send("POST", "/messages", { type: "stream", to: "general", topic: "workers", content }))
      .id as number;

  /** Register on `home`, act on `other`, and the event reaches the queue on `home`. */
  async function crossing(
    eventTypes: string[],
    act: (other: PinnedClient) => Promise<unknown>,
  ): Promise<Event[]> {
    const results: Event[] = [];
    for (const [home, other] of [
      [w0, w1],
      [w1, w0],
    ] as const) {
      const queue = await register(home, eventTypes);
      await act(other);
      const events = await nextEvents(home, queue.queueId, queue.lastEventId);
      expect(home.worker).to.not.equal(other.worker);
      results.push(...events);
    }
    return results;
  }

  it("delivers message events registered on one worker and sent through the other", async () => {
    const events = await crossing(["message"], (other) => sendMessage(other, "across"));
    expect(events.map((e) => e.type)).to.deep.equal(["message", "message"]);
  });

  it("delivers subscription events", async () => {
    let n = 0;
    const events = await crossing(["subscription"], (other) =>
      other.send("POST", "/users/me/subscriptions", { subscriptions: [{ name: `workers-${n++}` }] }),
    );
    expect(events.map((e) => [e.type, e.op])).to.deep.include(["subscription", "add"]);
  });

  it("delivers realm_user events, and the other worker's cache sees the change", async () => {
    let n = 0;
    const events = await crossing(["realm_user"], (other) =>
      other.send("PATCH", "/users/1", { full_name: `Renamed ${n++}` }),
    );
    expect(events.map((e) => [e.type, e.op])).to.deep.equal([
      ["realm_user", "update"],
      ["realm_user", "update"],
    ]);
    // Each worker answers from its own realm cache: the rename invalidated both.
    for (const client of [w0, w1]) {
      const me = ok(await client.send("GET", "/users/me"));
      expect(me.full_name).to.equal("Renamed 1");
    }
  });

  it("delivers reaction events", async () => {
    const messageId = await sendMessage(w0, "react to me");
    let n = 0;
    const emoji = ["octopus", "tada"];
    const events = await crossing(["reaction"], (other) =>
      other.send("POST", `/messages/${messageId}/reactions`, { emoji_name: emoji[n++] }),
    );
    expect(events.map((e) => [e.type, e.op])).to.deep.equal([
      ["reaction", "add"],
      ["reaction", "add"],
    ]);
  });

  it("delivers update_message_flags events", async () => {
    const messageId = await sendMessage(w0, "star me");
    let op = "add";
    const events = await crossing(["update_message_flags"], async (other) => {
      await other.send("POST", "/messages/flags", { messages: [messageId], op, flag: "starred" });
      op = "remove";
    });
    expect(events.map((e) => [e.type, e.op])).to.deep.equal([
      ["update_message_flags", "add"],
      ["update_message_flags", "remove"],
    ]);
  });

  it("gives every message exactly once and in order, whichever worker sends or is polled", async () => {
    const queue = await register(w0, ["message"]);
    const sent = await Promise.all(
      Array.from({ length: 40 }, (_, i) => sendMessage(i % 2 === 0 ? w0 : w1, `burst ${i}`)),
    );
    const received: number[] = [];
    let last = queue.lastEventId;
    for (let turn = 0; received.length < sent.length && turn < 40; turn++) {
      // Alternate the polling worker, acknowledging as a client does.
      const events = await nextEvents(turn % 2 === 0 ? w1 : w0, queue.queueId, last);
      for (const event of events) received.push((event.message as { id: number }).id);
      last = events.at(-1)!.id;
    }
    expect(received).to.deep.equal([...sent].sort((a, b) => a - b));
  });

  it("refuses another user's queue on the worker that did not create it", async () => {
    const created = JSON.parse(
      chatdSync([
        "--data-dir",
        dir,
        "user",
        "create",
        "--no-input",
        "--json",
        "--email",
        "iago@zulip.test",
        "--full-name",
        "Iago",
        "--password",
        "secret-pw",
      ]).stdout,
    ) as { user_id: number };
    expect(created.user_id).to.be.a("number");
    const key = chatdSync([
      "--data-dir",
      dir,
      "api-key",
      "--no-input",
      "--email",
      "iago@zulip.test",
      "--json",
    ]);
    const iagoKey = (JSON.parse(key.stdout) as { api_key: string }).api_key;
    const queue = await register(w0, ["message"]);
    const iago = (
      await clientsOnWorkers(port, basicAuth("iago@zulip.test", iagoKey).authorization, ["1"])
    ).get("1")!;
    try {
      const reply = await iago.send("GET", "/events", { queue_id: queue.queueId, dont_block: true });
      expect(reply.status).to.equal(400);
      expect(reply.body.code).to.equal("BAD_EVENT_QUEUE_ID");
    } finally {
      iago.close();
    }
  });

  it("passes a CLI command's change to queues on both workers", async () => {
    const q0 = await register(w0, ["realm_user"]);
    const q1 = await register(w1, ["realm_user"]);
    const result = chatdSync([
      "--data-dir",
      dir,
      "user",
      "create",
      "--no-input",
      "--email",
      "emilia@zulip.test",
      "--full-name",
      "Emilia",
      "--password",
      "secret-pw",
    ]);
    expect(result.code, result.stderr).to.equal(0);
    for (const [client, queue] of [
      [w0, q0],
      [w1, q1],
    ] as const) {
      const events = await nextEvents(client, queue.queueId, queue.lastEventId);
      expect(events.map((e) => [e.type, e.op])).to.deep.equal([["realm_user", "add"]]);
    }
  });

  it("deletes a queue on every worker", async () => {
    const queue = await register(w0, ["message"]);
    // Both workers hold a copy once each has served it.
    ok(await w1.send("GET", "/events", { queue_id: queue.queueId, dont_block: true }));
    ok(await w1.send("DELETE", "/events", { queue_id: queue.queueId }));
    for (const client of [w0, w1]) {
      const reply = await client.send("GET", "/events", { queue_id: queue.queueId, dont_block: true });
      expect(reply.body.code).to.equal("BAD_EVENT_QUEUE_ID");
    }
  });

  it("loses no acknowledged message and no queued event when a worker is killed under load", async () => {
    const auth = basicAuth(owner.email, owner.api_key).authorization;
    const firstNew = (await sendMessage(w0, "before the load")) + 1;
    const survivor = await register(w0, ["message"]);
    const orphan = await register(w1, ["message"]);
    const acknowledged: number[] = [];
    let sending = true;
    // Two senders, one per worker; a sender whose connection dies reconnects to whoever answers.
    const sender = async (start: PinnedClient) => {
      let client = start;
      while (sending) {
        try {
          acknowledged.push(await sendMessage(client, "under load"));
        } catch {
          client.close();
          client = new PinnedClient(port, auth);
        }
      }
      client.close();
    };
    const senders = [sender(w0), sender(new PinnedClient(port, auth))];
    await new Promise((r) => setTimeout(r, 300));
    // The dead worker's client has taken and acknowledged some events there.
    const early = await nextEvents(w1, orphan.queueId, orphan.lastEventId);
    const earlyLast = early.at(-1)!.id;
    ok(
      await w1.send("GET", "/events", {
        queue_id: orphan.queueId,
        last_event_id: earlyLast,
        dont_block: true,
      }),
    );
    await new Promise((r) => setTimeout(r, 300));
    process.kill(workerPid(server.pid!, 1), "SIGKILL");
    await new Promise((r) => setTimeout(r, 1500));
    sending = false;
    await Promise.all(senders);

    // Everything committed, with or without an answer, in commit order.
    const all = ok(await w0.send("GET", "/messages", { anchor: firstNew, num_before: 0, num_after: 5000 }))
      .messages as Array<{ id: number }>;
    const committed = all.map((m) => m.id).filter((id) => id >= firstNew);
    expect(committed).to.include.members(acknowledged);
    expect(acknowledged.length).to.be.greaterThan(10);

    // Both queues, the dead worker's polled again with the same queue_id wherever it lands.
    const resumes = [
      { queue: survivor, received: [] as number[], last: survivor.lastEventId },
      { queue: orphan, received: early.map((e) => (e.message as { id: number }).id), last: earlyLast },
    ];
    for (const { queue, received, last: from } of resumes) {
      const client = new PinnedClient(port, auth);
      let last = from;
      try {
        while (received.length < committed.length) {
          const reply = await client.send("GET", "/events", { queue_id: queue.queueId, last_event_id: last });
          const events = ok(reply).events as Event[];
          for (const event of events) {
            if (event.type === "message") received.push((event.message as { id: number }).id);
          }
          if (events.length > 0) last = events.at(-1)!.id;
          if (events.every((e) => e.type === "heartbeat")) break;
        }
      } finally {
        client.close();
      }
      expect(received).to.deep.equal(committed);
    }
    expect(workers.stderr()).to.match(/worker 1 \(pid \d+\) exited \(SIGKILL\); restarting it/);
  });
});

describe("one chatd serve per machine over one PostgreSQL database", function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  const servers: ChildProcess[] = [];

  before(function () {
    if (!onPostgres()) {
      this.test!.parent!.title += " (PostgreSQL only: SQLite serves one data directory)";
      this.skip();
    }
  });

  after(async () => {
    for (const server of servers) {
      server.kill("SIGTERM");
      if ((await exitedWithin(server, 15_000)) === null) server.kill("SIGKILL");
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("passes each one's commits to the other's queues through the event log", async () => {
    // Two data directories (two machines), one database.
    const [a, b] = [0, 1].map(() => mkdtempSync(join(tmpdir(), "chatd-machines-")));
    dirs.push(a!, b!);
    const owner = initDataDir(a!);
    const database = cliDatabaseEnv(["--data-dir", a!]);
    const ports: number[] = [];
    for (const dir of [a!, b!]) {
      const port = await freePort();
      const server = spawnServe(dir, port, { ...database, CHATD_HEARTBEAT_INTERVAL_SECS: "5" });
      servers.push(server);
      await waitForServer(`http://127.0.0.1:${port}`, server);
      ports.push(port);
    }
    const auth = basicAuth(owner.email, owner.api_key).authorization;
    const [onA, onB] = ports.map((port) => new PinnedClient(port, auth));
    try {
      for (const [home, other] of [
        [onA!, onB!],
        [onB!, onA!],
      ] as const) {
        const state = ok(await home.send("POST", "/register", { event_types: ["message"] }));
        const sent = ok(
          await other.send("POST", "/messages", {
            type: "stream",
            to: "general",
            topic: "machines",
            content: "across machines",
          }),
        ).id as number;
        const events = await nextEvents(home, state.queue_id as string, state.last_event_id as number);
        expect(events.map((e) => [e.type, (e.message as { id: number }).id])).to.deep.equal([
          ["message", sent],
        ]);
      }
    } finally {
      onA!.close();
      onB!.close();
    }
  });
});
