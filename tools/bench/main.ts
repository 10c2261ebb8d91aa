// `npm run bench`: measures chatd against baselines taken in the same run, on the same
// machine, and writes bench-results.json. Flags: --quick (short run), --large (1,000,000
// messages), --driver sqlite3|better-sqlite3|both (default: sqlite3), --database
// sqlite|postgres|both (default: sqlite; PostgreSQL: see postgres.ts), --workers N (only the
// scaling of N workers against one, see workers-scaling.ts), --only presence|webhooks|dbcopy|delivery|web
// (just that scenario; dbcopy: see db-copy-check.ts; delivery: the sends and the event
// delivery against their baselines, see delivery.ts; web: the web client's budgets in a
// browser, see web-client.ts), --cpu-prof DIR (the servers write V8
// CPU profiles there), --users (the users-per-core simulation, see users/, on each
// database of --database, then the web client's budgets; with --workers N on `serve --workers
// N`, --users-max N to stop growing at N users, and --users-at N to run that one count only,
// e.g. under --cpu-prof, without the web client).
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { buildDataset, SEARCH_WORD, type BenchUser, type Dataset } from "./dataset.js";
import {
  CHATD_BIN,
  CORES,
  LOAD_CORE,
  cpuSeconds,
  ROOT,
  SERVER_CORE,
  runJson,
  rssMb,
  spawnNode,
  stopProcess,
  waitForHttp,
  BENCH_DIR,
  inputFile,
} from "./processes.js";
import { median, round } from "./stats.js";
import { measureDelivery } from "./delivery.js";
import { freePort } from "../../test/helpers/ports.js";
import { measureHalfLoad, type HalfLoad } from "./half-load.js";
import { usersScenarios } from "./users/scenario.js";
import {
  createWebhookBot,
  ENDPOINT_DELAY_MS,
  measureWebhookSends,
  startSlowEndpoint,
} from "./webhook-sends.js";
import { createDatabase, databaseEnv, datasetStorage, startPostgres, stopPostgres } from "./postgres.js";
import { dbCopyScenarios } from "./db-copy-check.js";
import { workersScenarios } from "./workers-scaling.js";
import { measureWebClient, preparePassword } from "./web-client.js";

/** A SQLite driver, or "pg": chatd over PostgreSQL. */
type Driver = "sqlite3" | "better-sqlite3" | "pg";

interface Scenario {
  name: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
  driver?: Driver;
  database?: "sqlite" | "postgres";
  target?: string;
  /** A ratio over rounds: the smallest and largest round's (`ratio` is their median). */
  ratio_min?: number;
  ratio_max?: number;
  rounds?: number;
}

interface LoadResult {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  errors: number;
}

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const LARGE = argv.includes("--large");
const driverArg = argv[argv.indexOf("--driver") + 1];
const SQLITE_DRIVERS: Driver[] =
  argv.includes("--driver") && driverArg === "both"
    ? ["sqlite3", "better-sqlite3"]
    : [argv.includes("--driver") && driverArg === "better-sqlite3" ? "better-sqlite3" : "sqlite3"];
const DATABASE = argv.includes("--database") ? argv[argv.indexOf("--database") + 1] : undefined;
const WORKERS = argv.includes("--workers") ? Number(argv[argv.indexOf("--workers") + 1]) : undefined;
const DRIVERS: Driver[] =
  DATABASE === "postgres" ? ["pg"] : DATABASE === "both" ? [...SQLITE_DRIVERS, "pg"] : SQLITE_DRIVERS;

const ROUNDS = QUICK ? 2 : 3;
const LOAD_SECONDS = QUICK ? 3 : 5;
const CONNECTIONS = 10;
const MESSAGES = LARGE ? 1_000_000 : 100_000;
const PROFILE_DIR = argv.includes("--cpu-prof") ? argv[argv.indexOf("--cpu-prof") + 1] : undefined;
const ONLY = argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : undefined;
const USERS = argv.includes("--users");
const USERS_MAX = argv.includes("--users-max") ? Number(argv[argv.indexOf("--users-max") + 1]) : undefined;
const USERS_AT = argv.includes("--users-at") ? Number(argv[argv.indexOf("--users-at") + 1]) : undefined;
/** Seconds of each open-loop run at half the measured maximum rate. */
const HALF_LOAD_SECONDS = QUICK ? 5 : 10;
/** Users of the presence scenario, and how long its steady pinging is measured. */
const PRESENCE_USERS = 1000;
const PRESENCE_MEASURE_SEC = QUICK ? 30 : 60;
/** The outgoing-webhook scenario: send rate, and seconds per phase (two phases per round). */
const WEBHOOK_RATE = 100;
const WEBHOOK_PHASE_SEC = QUICK ? 4 : 10;
const WEBHOOK_ROUNDS = QUICK ? 1 : 2;

const results: Scenario[] = [];
const log = (line: string) => process.stderr.write(`${line}\n`);

const basic = (u: BenchUser) => `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`;

function load(
  url: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Promise<LoadResult> {
  return runJson<LoadResult>("load.js", {
    url,
    headers,
    connections: CONNECTIONS,
    durationSec: LOAD_SECONDS,
    ...extra,
  });
}

function record(s: Scenario): void {
  if (s.driver) s.database ??= s.driver === "pg" ? "postgres" : "sqlite";
  results.push(s);
  const ratio = s.ratio === null ? "" : ` (ratio ${s.ratio}${spread(s)})`;
  log(`  ${s.name}${s.driver ? ` [${s.driver}]` : ""}: ${s.value} ${s.unit}${ratio}`);
}

/** ", rounds 0.38-0.44" for a ratio measured over rounds. */
const spread = (s: Scenario) => (s.ratio_min === undefined ? "" : `, rounds ${s.ratio_min}-${s.ratio_max}`);

/** The median of per-round ratios, and their spread, as Scenario fields. */
function ratioOverRounds(
  ratios: number[],
  digits: number,
): Pick<Scenario, "ratio" | "ratio_min" | "ratio_max" | "rounds"> {
  return {
    ratio: round(median(ratios), digits),
    ratio_min: round(Math.min(...ratios), digits),
    ratio_max: round(Math.max(...ratios), digits),
    rounds: ratios.length,
  };
}

interface RunningChatd {
  child: ChildProcess;
  url: string;
  coldStartMs: number;
}

async function startChatd(
  dataDir: string,
  driver: Driver,
  env: NodeJS.ProcessEnv = {},
): Promise<RunningChatd> {
  const port = await freePort();
  const started = performance.now();
  const profile = PROFILE_DIR ? ["--cpu-prof", "--cpu-prof-dir", PROFILE_DIR] : [];
  const child = await spawnNode(
    [...profile, CHATD_BIN, "--data-dir", dataDir, "serve", "--port", String(port)],
    {
      core: SERVER_CORE,
      // Load tests measure throughput, not the limits that would cut them short.
      env: {
        CHATD_LOG_LEVEL: "warn",
        ...(driver === "pg" ? databaseEnv(dataDir) : { CHATD_DB_DRIVER: driver }),
        CHATD_RATE_LIMITING: "false",
        ...env,
      },
      stdio: "ignore",
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/api/v1/server_settings`, child);
  return { child, url, coldStartMs: performance.now() - started };
}

async function startKoa(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = await spawnNode([join(BENCH_DIR, "baselines", "koa-hello.js"), String(port)], {
    core: SERVER_CORE,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, child);
  return { child, url };
}

/** Median over rounds of (scenario / baseline), each pair measured back to back. */
async function readScenario(
  name: string,
  koaUrl: string,
  url: string,
  headers: Record<string, string>,
  driver: Driver,
  target: string,
): Promise<LoadResult> {
  const ratios: number[] = [];
  const values: number[] = [];
  const baselines: number[] = [];
  let last: LoadResult | null = null;
  for (let r = 0; r < ROUNDS; r++) {
    const base = await load(koaUrl);
    const run = await load(url, headers);
    if (run.non2xx > 0 || run.errors > 0)
      throw new Error(`${name}: ${run.non2xx} non-2xx, ${run.errors} errors`);
    ratios.push(run.rps / base.rps);
    values.push(run.rps);
    baselines.push(base.rps);
    last = run;
  }
  record({
    name,
    value: round(median(values), 0),
    unit: "req/s",
    baseline: round(median(baselines), 0),
    ...ratioOverRounds(ratios, 3),
    driver,
    target,
  });
  return last!;
}

async function benchDriver(driver: Driver, dataset: Dataset, koaUrl: string): Promise<void> {
  log(`\nchatd on ${driver}`);
  // Cold start: several launches, median.
  const starts: number[] = [];
  for (let i = 0; i < (QUICK ? 2 : 3); i++) {
    const probe = await startChatd(dataset.dataDir, driver);
    starts.push(probe.coldStartMs);
    await stopProcess(probe.child);
  }
  record({
    name: "cold_start_ms",
    value: round(median(starts), 0),
    unit: "ms",
    baseline: null,
    ratio: null,
    driver,
    target: "<= 1000",
  });

  const chatd = await startChatd(dataset.dataDir, driver);
  try {
    const owner = dataset.users[0]!;
    await fetch(`${chatd.url}/api/v1/users/me`, { headers: { authorization: basic(owner) } });
    record({
      name: "rss_idle_mb",
      value: round(await rssMb(chatd.child.pid!), 1),
      unit: "MB",
      baseline: null,
      ratio: null,
      driver,
      target: "<= 64",
    });

    const usersMe = await readScenario(
      "read_users_me_rps",
      koaUrl,
      `${chatd.url}/api/v1/users/me`,
      { authorization: basic(owner) },
      driver,
      ">= 0.40",
    );
    record({
      name: "read_users_me_p99_ms",
      value: usersMe.p99_ms,
      unit: "ms",
      baseline: null,
      ratio: null,
      driver,
    });
    const usersMeHalf = await measureHalfLoad({
      url: `${chatd.url}/api/v1/users/me`,
      method: "GET",
      requests: [{ headers: { authorization: basic(owner) }, body: "" }],
      maxRatePerSec: results.find((r) => r.name === "read_users_me_rps" && r.driver === driver)!.value,
      durationSec: HALF_LOAD_SECONDS,
    });
    recordHalfLoad("read_users_me", driver, "", usersMeHalf);

    if (dataset.channels.length > 0) {
      const subs = await readScenario(
        "read_subscriptions_rps",
        koaUrl,
        `${chatd.url}/api/v1/users/me/subscriptions`,
        { authorization: basic(owner) },
        driver,
        ">= 0.25",
      );
      record({
        name: "read_subscriptions_p99_ms",
        value: subs.p99_ms,
        unit: "ms",
        baseline: null,
        ratio: null,
        driver,
        target: "<= 25",
      });
    }

    // Memory with 10,000 parked long-polls (queues registered first).
    const queueCount = QUICK ? 2000 : 10_000;
    const queues = await registerQueues(chatd.url, dataset.users, queueCount);
    const before = await rssMb(chatd.child.pid!);
    const holder = await spawnNode(
      [
        join(BENCH_DIR, "longpoll-client.js"),
        inputFile({ mode: "hold", base: chatd.url, n: queueCount, rounds: 0, queues }),
      ],
      {
        core: LOAD_CORE,
      },
    );
    await new Promise<void>((resolve) => holder.stdout!.once("data", () => resolve()));
    const after = await rssMb(chatd.child.pid!);
    await stopProcess(holder);
    // Abandoned queues would keep collecting every later event until their idle timeout.
    await deleteQueues(chatd.url, queues);
    const perPollKib = ((after - before) * 1024) / queueCount;
    record({
      name: QUICK ? "rss_2k_longpolls_mb" : "rss_10k_longpolls_mb",
      value: round(after, 1),
      unit: "MB",
      baseline: round(before, 1),
      ratio: null,
      driver,
    });
    record({
      name: "longpoll_kib_each",
      value: round(perPollKib, 1),
      unit: "KiB",
      baseline: null,
      ratio: null,
      driver,
      target: "<= 8",
    });

    await benchSends(driver, dataset, chatd.url);
    await benchDelivery(driver, dataset, chatd.url);
    await benchMessages(driver, dataset, chatd.url, koaUrl);
  } finally {
    await stopProcess(chatd.child);
  }
}

/** GET /messages on a channel + topic narrow and a full-text search. */
async function benchMessages(driver: Driver, dataset: Dataset, url: string, koaUrl: string): Promise<void> {
  const owner = dataset.users[0]!;
  const headers = { authorization: basic(owner) };
  const fetchUrl = (narrow: unknown[]) =>
    `${url}/api/v1/messages?${new URLSearchParams({
      anchor: "newest",
      num_before: "50",
      num_after: "0",
      narrow: JSON.stringify(narrow),
    }).toString()}`;
  const topicNarrow = fetchUrl([
    { operator: "channel", operand: dataset.channels[0]!.id },
    { operator: "topic", operand: "topic 3" },
  ]);
  const probe = await fetch(topicNarrow, { headers });
  const fetched = (await probe.json()) as { messages?: unknown[] };
  if (fetched.messages?.length !== 50) throw new Error(`narrow fetch returned ${fetched.messages?.length}`);
  await readScenario("read_messages_narrow_rps", koaUrl, topicNarrow, headers, driver, "");
  const single = await load(topicNarrow, headers, { connections: 1 });
  record({
    name: "narrow_fetch_p50_ms",
    value: single.p50_ms,
    unit: "ms",
    baseline: null,
    ratio: null,
    driver,
    target: LARGE ? "<= 5" : "",
  });
  const search = await load(fetchUrl([{ operator: "search", operand: SEARCH_WORD }]), headers, {
    connections: 1,
  });
  if (search.non2xx > 0) throw new Error("search narrow failed");
  record({
    name: "search_p50_ms",
    value: search.p50_ms,
    unit: "ms",
    baseline: null,
    ratio: null,
    driver,
    target: LARGE ? "<= 50" : "",
  });
}

/** The raw batched write limit of the driver (baselines/write-limit.ts), on the server core. */
async function writeLimit(driver: Driver): Promise<number> {
  const pg = driver === "pg" ? { databaseUrl: await createDatabase() } : {};
  const write = await runJson<{ msgs_per_sec: number }>(
    "baselines/write-limit.js",
    { driver: driver === "pg" ? "sqlite3" : driver, seconds: LOAD_SECONDS, ...pg },
    SERVER_CORE,
  );
  return write.msgs_per_sec;
}

/**
 * Sends to the 50-subscriber channel while its 50 subscribers keep live long-polls: each
 * round the raw write limit (the baseline), then chatd's send rate right after; the ratio
 * is the median of the rounds'. Then the same sends at half that rate (open loop).
 */
async function benchSends(driver: Driver, dataset: Dataset, url: string): Promise<void> {
  const fifty = dataset.channels[0]!;
  const subscribers = dataset.users.filter((u) => fifty.subscribers.includes(u.id));
  const live = await registerQueues(url, subscribers, subscribers.length);
  const follower = await spawnNode(
    [
      join(BENCH_DIR, "longpoll-client.js"),
      inputFile({ mode: "follow", base: url, n: live.length, rounds: 0, queues: live }),
    ],
    { core: LOAD_CORE },
  );
  await new Promise<void>((resolve) => follower.stdout!.once("data", () => resolve()));
  const sender = subscribers[0]!;
  const limits: number[] = [];
  const sends: LoadResult[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    limits.push(await writeLimit(driver));
    const send = await load(
      `${url}/api/v1/messages`,
      { authorization: basic(sender), "content-type": "application/x-www-form-urlencoded" },
      {
        method: "POST",
        // One connection per subscriber of the channel.
        connections: 50,
        body: new URLSearchParams({
          type: "stream",
          to: String(fifty.id),
          topic: "bench",
          content: "hello @**User 1** :smile:",
        }).toString(),
      },
    );
    if (send.non2xx > 0 || send.errors > 0)
      throw new Error(`send: ${send.non2xx} non-2xx, ${send.errors} errors`);
    sends.push(send);
  }
  const sendRate = median(sends.map((send) => send.rps));
  // At half that rate, with the same live long-polls and one sender per subscriber.
  const half = await measureHalfLoad({
    url: `${url}/api/v1/messages`,
    method: "POST",
    requests: subscribers.map((s) => ({
      headers: { authorization: basic(s), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        type: "stream",
        to: String(fifty.id),
        topic: "half load",
        content: "hello",
      }).toString(),
    })),
    maxRatePerSec: sendRate,
    durationSec: HALF_LOAD_SECONDS,
  });
  await stopProcess(follower);
  await deleteQueues(url, live);
  record({
    name: driver === "pg" ? "postgres_write_limit_msgs" : "sqlite_write_limit_msgs",
    value: round(median(limits), 0),
    unit: "msg/s",
    baseline: null,
    ratio: null,
    driver,
  });
  record({
    name: "send_message_msgs",
    value: round(sendRate, 0),
    unit: "msg/s",
    baseline: round(median(limits), 0),
    ...ratioOverRounds(
      sends.map((send, r) => send.rps / limits[r]!),
      3,
    ),
    driver,
    target: ">= 0.50",
  });
  record({
    name: "send_message_p99_ms",
    value: median(sends.map((send) => send.p99_ms)),
    unit: "ms (at saturation)",
    baseline: null,
    ratio: null,
    driver,
  });
  recordHalfLoad("send_message", driver, "<= 50", half);
}

/**
 * Event delivery from one send to 1,000 parked queues (20 per subscriber of the
 * 50-subscriber channel) against the bare long-poll server, round by round (delivery.ts).
 */
async function benchDelivery(driver: Driver, dataset: Dataset, url: string): Promise<void> {
  const fifty = dataset.channels[0]!;
  const subscribers = dataset.users.filter((u) => fifty.subscribers.includes(u.id));
  const sender = subscribers[0]!;
  const queues = await registerQueues(url, subscribers, 1000);
  const delivery = await measureDelivery({
    url,
    queues,
    trigger: {
      path: "/messages",
      auth: { email: sender.email, apiKey: sender.apiKey },
      params: { type: "stream", to: String(fifty.id), topic: "delivery", content: "ping" },
    },
    rounds: ROUNDS,
    firings: QUICK ? 2 : 3,
    log,
  });
  await deleteQueues(url, queues);
  if (delivery.baselineLost > 0)
    throw new Error(`the bare long-poll server lost ${delivery.baselineLost} events`);
  record({
    name: "longpoll_baseline_p99_ms",
    value: delivery.baseline.p99_ms,
    unit: `ms (${queues.length} polls, ${delivery.payloadBytes}-byte bodies)`,
    baseline: null,
    ratio: null,
    driver,
  });
  record({
    name: "event_delivery_p50_ms",
    value: delivery.chatd.p50_ms,
    unit: "ms",
    baseline: delivery.baseline.p50_ms,
    ratio: round(delivery.chatd.p50_ms / delivery.baseline.p50_ms, 2),
    driver,
  });
  record({
    name: "event_delivery_p99_ms",
    value: delivery.chatd.p99_ms,
    unit: "ms",
    baseline: delivery.baseline.p99_ms,
    ...ratioOverRounds(delivery.ratios, 2),
    driver,
    target: "ratio <= 1.5",
  });
  record({
    name: "event_delivery_client_cpu_ms",
    value: delivery.chatd.client_cpu_ms,
    unit: "ms per firing (load generator)",
    baseline: delivery.baseline.client_cpu_ms,
    ratio: null,
    driver,
  });
  record({
    name: "events_lost",
    value: delivery.lost,
    unit: "events",
    baseline: null,
    ratio: null,
    driver,
    target: "0",
  });
}

/**
 * 1,000 distinct users whose clients ping POST /users/me/presence every 60 seconds (see
 * presence-clients.ts), in real time: the share of one core the server process spends,
 * from its CPU time (/proc) over the measured window. The baseline is the same server
 * idle (its timers), measured just before.
 */
async function benchPresence(driver: Driver, work: string): Promise<void> {
  log(
    `\npresence: ${PRESENCE_USERS} users pinging every 60 s (${driver}; about ${60 + PRESENCE_MEASURE_SEC + 10} s)`,
  );
  const dataset = await buildDataset({
    ...(await datasetStorage(driver, join(work, `${driver}-presence`))),
    users: PRESENCE_USERS,
    channels: 0,
    messages: 0,
  });
  const chatd = await startChatd(dataset.dataDir, driver);
  try {
    const pid = chatd.child.pid!;
    const share = async (from: { cpu: number; at: number }) =>
      (100 * ((await cpuSeconds(pid)) - from.cpu)) / ((performance.now() - from.at) / 1000);
    const sample = async () => ({ cpu: await cpuSeconds(pid), at: performance.now() });
    const quiet = await sample();
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const idlePct = await share(quiet);
    const clients = await spawnNode(
      [
        join(BENCH_DIR, "presence-clients.js"),
        inputFile({
          base: chatd.url,
          users: dataset.users.map(({ email, apiKey }) => ({ email, apiKey })),
          measureSec: PRESENCE_MEASURE_SEC,
        }),
      ],
      { core: LOAD_CORE },
    );
    let measured: { cpu: number; at: number } | null = null;
    let result: { pings: number; failed: number; p50_ms: number; p99_ms: number; pct: number } | null = null;
    for await (const line of createInterface({ input: clients.stdout! })) {
      const message = JSON.parse(line) as {
        event: string;
        pings: number;
        failed: number;
        p50_ms: number;
        p99_ms: number;
      };
      if (message.event === "measure") measured = await sample();
      if (message.event === "done" && measured) result = { ...message, pct: await share(measured) };
    }
    if (!result) throw new Error("presence clients ended without a result");
    if (result.failed > 0) throw new Error(`presence: ${result.failed} failed pings`);
    record({
      name: "presence_1k_clients_cpu_pct",
      value: round(result.pct, 2),
      unit: "% of a core",
      baseline: round(idlePct, 2),
      ratio: null,
      driver,
      target: "< 5",
    });
    record({
      name: "presence_ping_p99_ms",
      value: result.p99_ms,
      unit: "ms",
      baseline: null,
      ratio: null,
      driver,
    });
  } finally {
    await stopProcess(chatd.child);
  }
}

/**
 * POST /messages at WEBHOOK_RATE messages/s (open loop), each @-mentioning an outgoing-webhook
 * bot whose endpoint answers after 2 s, against the same sends mentioning a person, in
 * alternating phases on one server: p50/p99 of both (the ratio is with / without) and the
 * deliveries the endpoint answered. Its own data set: 60 users, sending to the 50-subscriber channel.
 */
async function benchWebhooks(driver: Driver, work: string): Promise<void> {
  const seconds = WEBHOOK_PHASE_SEC * WEBHOOK_ROUNDS;
  log(`\noutgoing webhooks: ${WEBHOOK_RATE} msg/s, ${seconds} s with and ${seconds} s without (${driver})`);
  const dataset = await buildDataset({
    ...(await datasetStorage(driver, join(work, `${driver}-webhooks`))),
    users: 60,
    // 20 channels: each of the first 50 users holds 20 subscriptions (see dataset.ts).
    channels: 20,
    messages: 2000,
  });
  const endpoint = await startSlowEndpoint();
  const chatd = await startChatd(dataset.dataDir, driver, {
    CHATD_WEBHOOK_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
  });
  try {
    const fifty = dataset.channels[0]!;
    const botName = await createWebhookBot(chatd.url, dataset.users[0]!, endpoint.url);
    const senders = dataset.users.filter((u) => fifty.subscribers.includes(u.id)).slice(1, 11);
    const figures = await measureWebhookSends({
      url: chatd.url,
      senders,
      channelId: fifty.id,
      botName,
      personName: "User 0",
      endpoint,
      ratePerSec: WEBHOOK_RATE,
      phaseSec: WEBHOOK_PHASE_SEC,
      rounds: WEBHOOK_ROUNDS,
      serverPid: chatd.child.pid!,
      log,
    });
    for (const p of ["p50", "p99"] as const) {
      const withMs = round(figures.with[`${p}_ms`], 1);
      const withoutMs = round(figures.without[`${p}_ms`], 1);
      record({
        name: `send_webhook_mention_${p}_ms`,
        value: withMs,
        unit: "ms",
        baseline: withoutMs,
        ratio: round(withMs / withoutMs, 2),
        driver,
        target: p === "p99" ? "ratio within noise of 1" : "",
      });
    }
    record({
      name: "send_webhook_mention_server_cpu_pct",
      value: round(figures.with.cpu_pct, 1),
      unit: "% of a core",
      baseline: round(figures.without.cpu_pct, 1),
      ratio: round(figures.with.cpu_pct / figures.without.cpu_pct, 2),
      driver,
    });
    record({
      name: "webhook_deliveries_completed",
      value: figures.deliveries_completed,
      unit: `of ${figures.deliveries_expected} (endpoint ${ENDPOINT_DELAY_MS} ms)`,
      baseline: null,
      ratio: null,
      driver,
      target: "all",
    });
  } finally {
    await stopProcess(chatd.child);
    await endpoint.close();
  }
}

/** `<prefix>_half_load_p50_ms` and `_p99_ms` (see half-load.ts). */
function recordHalfLoad(prefix: string, driver: Driver, p99Target: string, half: HalfLoad): void {
  if (half.error) throw new Error(`${prefix} at half load: ${half.error}`);
  for (const p of ["p50", "p99"] as const) {
    record({
      name: `${prefix}_half_load_${p}_ms`,
      value: half[`${p}_ms`],
      unit: `ms (at ${round(half.rate, 0)}/s)`,
      baseline: null,
      ratio: null,
      driver,
      target: p === "p99" ? p99Target : "",
    });
  }
}

/** The users-per-core simulation (users/), on its own data set that grows with the count. */
async function benchUsers(driver: Driver, work: string): Promise<void> {
  log(`
users per core (${driver}${WORKERS && WORKERS > 1 ? `, serve --workers ${WORKERS}` : ""})`);
  const storage = await datasetStorage(driver, join(work, `${driver}-users`));
  const scenarios = await usersScenarios({
    driver,
    dataDir: storage.dataDir,
    databaseUrl: storage.databaseUrl,
    quick: QUICK,
    workers: WORKERS ?? 1,
    log,
    maxUsers: USERS_MAX,
    usersAt: USERS_AT,
    nodeArgs: PROFILE_DIR ? ["--cpu-prof", "--cpu-prof-dir", PROFILE_DIR] : [],
    freePort,
  });
  for (const s of scenarios) record(s);
}

async function deleteQueues(
  url: string,
  queues: Array<{ auth: { email: string; apiKey: string }; queueId: string }>,
) {
  for (let i = 0; i < queues.length; i += 50) {
    await Promise.all(
      queues.slice(i, i + 50).map(({ auth, queueId }) =>
        fetch(`${url}/api/v1/events?queue_id=${encodeURIComponent(queueId)}`, {
          method: "DELETE",
          headers: { authorization: basic({ id: 0, ...auth }) },
        }).then((res) => res.arrayBuffer()),
      ),
    );
  }
}

async function registerQueues(url: string, users: BenchUser[], n: number) {
  const queues: Array<{ auth: { email: string; apiKey: string }; queueId: string }> = [];
  for (let i = 0; i < n; i++) {
    const user = users[i % users.length]!;
    const res = await fetch(`${url}/api/v1/register`, {
      method: "POST",
      headers: { authorization: basic(user), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ event_types: '["message"]', fetch_event_types: "[]" }),
    });
    const body = (await res.json()) as { queue_id: string };
    queues.push({ auth: { email: user.email, apiKey: user.apiKey }, queueId: body.queue_id });
  }
  return queues;
}

/** `--workers N`: over PostgreSQL unless `--database sqlite` asks for SQLite (CHATD_SQLITE_WORKERS=1). */
async function benchWorkers(workers: number, work: string): Promise<void> {
  const driver: Driver = DATABASE === "sqlite" ? SQLITE_DRIVERS[0]! : "pg";
  log(`\n${workers} workers against 1 (${driver}): building the data set`);
  const dataset = await buildDataset({
    ...(await datasetStorage(driver, join(work, `${driver}-workers`))),
    users: 200,
    channels: 50,
    messages: MESSAGES,
  });
  const scenarios = await workersScenarios({
    dataset,
    workers,
    database: driver === "pg" ? "postgres" : "sqlite",
    rounds: ROUNDS,
    loadSeconds: LOAD_SECONDS,
    sends: QUICK ? 100 : 300,
    log,
  });
  for (const s of scenarios) record({ ...s, driver });
}

/** `--only delivery`: the sends and the event delivery, on the main data set. */
async function benchSendsAndDelivery(driver: Driver, work: string): Promise<void> {
  log(`\nsends and event delivery (${driver}): building the data set`);
  const dataset = await buildDataset({
    ...(await datasetStorage(driver, join(work, driver))),
    users: 200,
    channels: 50,
    messages: MESSAGES,
  });
  const chatd = await startChatd(dataset.dataDir, driver);
  try {
    await benchSends(driver, dataset, chatd.url);
    await benchDelivery(driver, dataset, chatd.url);
  } finally {
    await stopProcess(chatd.child);
  }
}

/** Every scenario: the baselines, then each driver's data set and scenarios. */
async function benchAll(koaUrl: string, work: string): Promise<void> {
  // For the table: each ratio uses its own baselines, measured in the same round as it.
  log("\nbaselines");
  const koaRps = await load(koaUrl);
  record({
    name: "koa_hello_rps",
    value: round(koaRps.rps, 0),
    unit: "req/s",
    baseline: null,
    ratio: null,
  });
  for (const driver of DRIVERS) {
    log(`\nbuilding data set (${driver})`);
    const dataDir = join(work, driver);
    const built = performance.now();
    const dataset = await buildDataset({
      ...(await datasetStorage(driver, dataDir)),
      users: 200,
      channels: 50,
      messages: MESSAGES,
    });
    record({
      name: "dataset_build_s",
      value: round((performance.now() - built) / 1000, 1),
      unit: "s",
      baseline: null,
      ratio: null,
      driver,
    });
    await benchDriver(driver, dataset, koaUrl);
    await benchPresence(driver, work);
    await benchWebhooks(driver, work);
    // The browser's side does not depend on the driver: measured once, on the first.
    if (driver === DRIVERS[0]) await benchWebClient(driver, dataset);
  }
}

/** `--only web`, and a step of the full run: the web client's budgets (web-client.ts). */
async function benchWebClient(driver: Driver, given?: Dataset): Promise<void> {
  log(`
web client (${driver})${given ? "" : ": building the data set"}`);
  const dataset =
    given ??
    (await buildDataset({
      ...(await datasetStorage(driver, join(mkdtempSync(join(tmpdir(), "chatd-bench-web-")), driver))),
      users: 200,
      channels: 50,
      messages: MESSAGES,
    }));
  preparePassword(dataset.dataDir, dataset.users[0]!, driver === "pg" ? databaseEnv(dataset.dataDir) : {});
  const chatd = await startChatd(dataset.dataDir, driver);
  try {
    const figures = await measureWebClient(chatd.url, dataset, log);
    if (!figures) return;
    const web = (name: string, value: number, unit: string, target: string) =>
      record({ name, value, unit, baseline: null, ratio: null, driver, target });
    web(
      "web_cold_js_css_kb",
      round(figures.coldBytes / 1024, 1),
      `KB gzipped (${figures.coldFiles} files)`,
      "<= 120",
    );
    web("web_feed_drawn_ms", figures.feedDrawnMs, `ms (runs ${figures.feedDrawnRuns.join(", ")})`, "<= 1000");
    web(
      "web_live_message_drawn_p99_ms",
      figures.liveP99Ms,
      `ms (p50 ${figures.liveP50Ms}, max ${figures.liveMaxMs}, ${figures.liveMessages} messages)`,
      "<= 100",
    );
    web(
      "web_heap_after_scrollback_mb",
      figures.heapMb,
      `MB (${figures.heapMessages} messages loaded)`,
      "<= 60",
    );
  } finally {
    await stopProcess(chatd.child);
  }
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  log(
    `chatd benchmark (${QUICK ? "quick" : "full"}${LARGE ? ", large" : ""}); ${CORES} cores; drivers: ${DRIVERS.join(", ")}${WORKERS ? `; ${WORKERS} workers` : ""}`,
  );
  const koa = await startKoa();
  const work = mkdtempSync(join(tmpdir(), "chatd-bench-"));
  try {
    if (DRIVERS.includes("pg") || (!USERS && (ONLY === "dbcopy" || WORKERS))) await startPostgres(log);
    if (USERS) {
      for (const driver of DRIVERS) await benchUsers(driver, work);
      // The web client's budgets, reported with the people a core serves (a whole run's figures).
      if (USERS_AT === undefined) await benchWebClient(DRIVERS[0]!);
    } else if (WORKERS) await benchWorkers(WORKERS, work);
    else if (ONLY === "presence") for (const driver of DRIVERS) await benchPresence(driver, work);
    else if (ONLY === "webhooks") for (const driver of DRIVERS) await benchWebhooks(driver, work);
    else if (ONLY === "delivery") for (const driver of DRIVERS) await benchSendsAndDelivery(driver, work);
    else if (ONLY === "web") await benchWebClient(DRIVERS[0]!);
    else if (ONLY === "dbcopy") {
      for (const s of await dbCopyScenarios(work, MESSAGES, log)) record(s);
    } else await benchAll(koa.url, work);
  } finally {
    await stopProcess(koa.child);
    await stopPostgres();
    rmSync(work, { recursive: true, force: true });
  }

  const machine = {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: CORES,
    memory_gb: round(totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    pinned: CORES > 1,
    quick: QUICK,
    large: LARGE,
    workers: WORKERS ?? 1,
    duration_s: round((Date.now() - startedAt) / 1000, 0),
  };
  writeFileSync(
    join(ROOT, "bench-results.json"),
    `${JSON.stringify({ machine, scenarios: results }, null, 2)}\n`,
  );
  printTable();
  log(`\nwrote ${join(ROOT, "bench-results.json")}`);
}

function printTable(): void {
  const rows = results.map((s) => [
    s.name,
    s.driver ?? "",
    `${s.value} ${s.unit}`,
    s.baseline === null ? "" : String(s.baseline),
    s.ratio === null
      ? ""
      : `${s.ratio}${s.ratio_min === undefined ? "" : ` (${s.ratio_min}-${s.ratio_max})`}`,
    s.target ?? "",
  ]);
  const headers = ["scenario", "driver", "value", "baseline", "ratio (rounds' min-max)", "target"];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  process.stdout.write(`\n${line(headers)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

await main();
