import { expect } from "chai";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Knex } from "knex";
import { closeApp, createApp, startEvents } from "../../src/server/create-app.js";
import type { App } from "../../src/app.js";
import { testConfig, type Config } from "../../src/config.js";
import { databasePath } from "../../src/db/knex.js";
import { appendEvents, readLog } from "../../src/db/event-log.js";
import { listen } from "../../src/server/listen.js";
import { silentLogger } from "../../src/logger.js";
import { Client, expectError, expectSuccess } from "../helpers/client.js";
import { Factory, type TestUser } from "../helpers/factories.js";
import { ROLE } from "../../src/world/roles.js";
import { templateDatabase, testDbDriver } from "../helpers/setup.js";
import { databaseForServer, onPostgres, releaseDataDir } from "../helpers/postgres.js";
import { CHEAP_SCRYPT, TEST_HOST, startTestServer, type TestServer } from "../helpers/server.js";

/** Two server processes' apps (`serve --workers 2`), in this process, over one database. */
interface Worker {
  app: App;
  url: string;
  close(): Promise<void>;
}

async function startWorker(index: number, dataDir: string, overrides: Partial<Config>): Promise<Worker> {
  const config = testConfig(dataDir, {
    external_url: `http://${TEST_HOST}`,
    log_level: "silent",
    heartbeat_interval_secs: 60,
    db_driver: testDbDriver(),
    rate_limiting: false,
    ...overrides,
  });
  const app = await createApp(config, { logger: silentLogger, scrypt: CHEAP_SCRYPT, worker: { index } });
  await startEvents(app);
  const running = await listen(app, "127.0.0.1", 0);
  return {
    app,
    url: `http://127.0.0.1:${running.port}`,
    async close() {
      await running.close();
      await closeApp(app);
    },
  };
}

/** Counts the statements that read or write event_log. */
function countLogStatements(knex: Knex): { selects: number; inserts: number; stop(): void } {
  const counts = {
    selects: 0,
    inserts: 0,
    stop: () => void knex.off("query", listener),
  };
  const listener = (query: { sql: string }) => {
    if (!/event_log/.test(query.sql)) return;
    if (/^\s*select/i.test(query.sql)) counts.selects++;
    if (/^\s*insert/i.test(query.sql)) counts.inserts++;
  };
  knex.on("query", listener);
  return counts;
}

describe("event queues of several processes", function () {
  this.timeout(60_000);
  let dataDir: string;
  let w0: Worker;
  let w1: Worker;
  let hamlet: TestUser;
  const on = (worker: Worker, user: TestUser) => new Client(worker.url, user.client.credentials);

  before(async function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-replicated-"));
    const overrides: Partial<Config> = {
      max_queues_per_user: 2,
      // A process applies the others' commits only when a request asks it to: the log
      // reads counted below are the request's own.
      worker_event_poll_ms: 600_000,
      database_url: onPostgres() ? await databaseForServer(dataDir) : "",
    };
    if (!overrides.database_url) {
      copyFileSync(templateDatabase(), databasePath(testConfig(dataDir, { db_driver: testDbDriver() })));
    }
    w0 = await startWorker(0, dataDir, overrides);
    w1 = await startWorker(1, dataDir, overrides);
    const realm = await new Factory(w0.app, w0.url).realm({ hamlet: ROLE.MEMBER });
    hamlet = realm.users.hamlet!;
  });

  after(async function () {
    await w1?.close();
    await w0?.close();
    rmSync(dataDir, { recursive: true, force: true });
    await releaseDataDir(dataDir);
  });

  const registerOn = async (worker: Worker) =>
    expectSuccess(await on(worker, hamlet).post("/register", { event_types: ["message"] }))
      .queue_id as string;
  const pollOn = (worker: Worker, queueId: string) =>
    on(worker, hamlet).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true });

  it("enforces the per-user queue limit in the store: the oldest queue is gone on every process", async function () {
    const oldest = await registerOn(w0);
    // Both processes hold a copy of the oldest queue.
    expectSuccess(await pollOn(w1, oldest));
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a later last_access
    const second = await registerOn(w1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const third = await registerOn(w1);
    for (const worker of [w0, w1]) {
      expectError(await pollOn(worker, oldest), 400, `Bad event queue ID: ${oldest}`, "BAD_EVENT_QUEUE_ID");
      expectSuccess(await pollOn(worker, second));
      expectSuccess(await pollOn(worker, third));
    }
    const stored = await w0.app.knex("event_queues").where({ user_id: hamlet.id }).pluck("queue_id");
    expect(stored.sort()).to.deep.equal([second, third].sort());
    for (const queueId of [second, third]) {
      expectSuccess(await on(w0, hamlet).delete("/events", { queue_id: queueId }));
    }
  });

  it("loads a queue another process registered with one read of the log's new entries", async function () {
    const queueId = await registerOn(w0);
    const counts = countLogStatements(w1.app.knex);
    try {
      expectSuccess(await pollOn(w1, queueId));
    } finally {
      counts.stop();
    }
    // One read catching up, one replaying the queue's history (its resume point onwards).
    expect(counts.selects).to.equal(2);
    // A local queue: one read catching up.
    const again = countLogStatements(w1.app.knex);
    try {
      expectSuccess(await pollOn(w1, queueId));
    } finally {
      again.stop();
    }
    expect(again.selects).to.equal(1);
    expectSuccess(await on(w0, hamlet).delete("/events", { queue_id: queueId }));
  });

  it("writes a commit's log entries with one INSERT, numbered in the order given", async function () {
    const knex = w0.app.db.knex;
    const counts = countLogStatements(knex);
    const events = [1, 2, 3].map((n) => [0, { type: "heartbeat", n }, []] as never);
    const before = Number((await knex("event_log").max("id as id").first())?.id ?? 0);
    try {
      await knex.transaction((trx) => appendEvents(trx, events, "test", 0));
    } finally {
      counts.stop();
    }
    expect(counts.inserts).to.equal(1);
    const entries = await readLog(knex, before, 10);
    expect(entries.map((entry) => (entry.event as unknown as { n: number }).n)).to.deep.equal([1, 2, 3]);
    expect(entries.map((entry) => entry.id)).to.deep.equal(
      [...entries.map((entry) => entry.id)].sort((a, b) => a - b),
    );
    await knex("event_log").where("id", ">", before).delete();
  });
});

describe("the event log of one server process alone", function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async function () {
    server = await startTestServer({ external_change_poll_ms: 20 });
  });
  after(() => server?.close());

  it("is cleared of an admin command's cache invalidations once the server has applied them", async function () {
    const command = await createApp(server.app.config, {
      outbox: true,
      migrate: false,
      logger: silentLogger,
    });
    try {
      // An admin command's change with a cache hook: the log tells servers to drop every cache.
      await command.db.transaction((tx) => Promise.resolve(tx.afterCommit(() => undefined)));
    } finally {
      await closeApp(command);
    }
    const knex = server.app.db.knex;
    for (let waited = 0; waited < 5000; waited += 20) {
      if (!(await knex("event_log").first("id"))) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await knex("event_log").count<Array<{ n: number }>>("id as n")).to.deep.equal([{ n: 0 }]);
  });
});
