import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { testConfig } from "../../src/config.js";
import { createKnex } from "../../src/db/knex.js";
import { Client, expectSuccess } from "../helpers/client.js";
import {
  basicAuth,
  initDataDir,
  type InitResult,
  startServerProcess,
  type ServerProcess,
} from "../helpers/cli.js";
import { userWithKey } from "./fault-setup.js";
import { fuzzPass, fuzzedRoutes, illFormedSweep, type Actor, type FuzzFigures } from "./fuzz.js";
import { killCycles, type KillFigures } from "./kill.js";
import { measureLoginFlood } from "../bench/login-flood.js";
import { restartCycles, type RestartFigures } from "./restart.js";

/**
 * `npm run test:faults`: on each database driver, each part on its own temporary data directory
 * and real server:
 * (a) malformed requests to every route as owner, member, guest and anonymous, then ill-formed
 *     Unicode in each parameter of each route as the owner; it passes with no 5xx, only Zulip
 *     error envelopes, a server that still answers, and no row changed by the anonymous
 *     requests (all refused or read-only);
 * (b) kill -9 cycles under concurrent sends: no acknowledged message lost or changed, and
 *     `PRAGMA integrity_check` ok after each;
 * (c) graceful restarts under keep-alive long-polls: exit 0 within `shutdown_timeout_secs`, and
 *     every queue and every event survives, once and in order;
 * (d) a login flood (32 clients sending wrong passwords for 8 s, rate limits off): a member's
 *     `GET /messages` p50 at most twice its idle p50 (test/bench/login-flood.ts).
 * `--quick` is the short pass CI runs; the long one is the default.
 */
const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    requests: { type: "string" },
    driver: { type: "string", default: "both" },
    seed: { type: "string", default: "16" },
    concurrency: { type: "string", default: "8" },
    cycles: { type: "string" },
    polls: { type: "string" },
    restarts: { type: "string" },
    parts: { type: "string", default: "fuzz,kill,restart,flood" },
  },
});
const REQUESTS = Number(args.requests ?? (args.quick ? 2500 : 10000));
const CYCLES = Number(args.cycles ?? (args.quick ? 3 : 20));
const POLLS = Number(args.polls ?? (args.quick ? 200 : 1000));
const RESTARTS = Number(args.restarts ?? (args.quick ? 1 : 3));
const PHASE_SECS = args.quick ? 3 : 8;
const DRIVERS = args.driver === "both" ? ["sqlite3", "better-sqlite3"] : [args.driver];
const PARTS = new Set(args.parts.split(","));
const SEED = Number(args.seed);
/** How much slower a member's reads may get under a login flood. */
const MAX_FLOOD_SLOWDOWN = 2;

const log = (line: string) => process.stdout.write(`${line}\n`);

interface Setup {
  actors: Actor[];
  ids: string[];
}

/** A member and a guest beside the owner, a message, and the IDs paths may use. */
async function setUp(server: ServerProcess, owner: InitResult): Promise<Setup> {
  const ownerClient = new Client(server.url, { email: owner.email, apiKey: owner.api_key });
  const actors: Actor[] = [{ name: "owner", auth: basicAuth(owner.email, owner.api_key).authorization }];
  const ids = new Set<string>();
  const actorIds = new Set<string>([String(owner.user_id)]);
  for (const [name, role] of [
    ["member", 400],
    ["guest", 600],
  ] as const) {
    const user = await userWithKey(ownerClient, `${name}@zulip.test`, `${name}-password`, name);
    actorIds.add(String(user.userId));
    if (role !== 400) expectSuccess(await ownerClient.patch(`/users/${user.userId}`, { role }));
    actors.push({ name, auth: basicAuth(user.email, user.apiKey).authorization });
  }
  actors.push({ name: "anonymous", auth: null });
  // Paths get this user's ID, never an actor's: a well-formed deactivation must not end the pass.
  const target = expectSuccess(
    await ownerClient.post("/users", {
      email: "target@zulip.test",
      password: "target-pw",
      full_name: "target",
    }),
  );
  ids.add(String(target.user_id));
  const sent = expectSuccess(
    await ownerClient.post("/messages", { type: "stream", to: "general", topic: "faults", content: "hi" }),
  );
  ids.add(String(sent.id));
  const streams = expectSuccess(await ownerClient.get("/streams")).streams as Array<{ stream_id: number }>;
  for (const stream of streams) ids.add(String(stream.stream_id));
  // Message and channel IDs may equal an actor's user ID, which paths must never get.
  return { actors, ids: [...ids].filter((id) => !actorIds.has(id)) };
}

/** Rows per table: what the anonymous pass must leave as it was. */
async function rowCounts(dataDir: string): Promise<Record<string, number>> {
  const knex = createKnex(testConfig(dataDir));
  try {
    const tables = (await knex("sqlite_master")
      .where({ type: "table" })
      .whereNot("name", "like", "sqlite_%")
      .pluck("name")) as string[];
    const counts: Record<string, number> = {};
    for (const table of tables) {
      const [row] = await knex(table).count<Array<{ n: number }>>({ n: "*" });
      counts[table] = Number(row?.n ?? 0);
    }
    return counts;
  } finally {
    await knex.destroy();
  }
}

function changedTables(before: Record<string, number>, after: Record<string, number>): string[] {
  return Object.keys({ ...before, ...after }).filter((table) => before[table] !== after[table]);
}

async function runFuzz(driver: string): Promise<{ figures: FuzzFigures; problems: string[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), "chatd-faults-"));
  const problems: string[] = [];
  let server: ServerProcess | null = null;
  try {
    const owner = initDataDir(dataDir);
    server = await startServerProcess(dataDir, {
      env: { CHATD_DB_DRIVER: driver, CHATD_LOG_LEVEL: "error" },
    });
    const { actors, ids } = await setUp(server, owner);
    const started = performance.now();

    // Anonymous first, alone, between two row counts: refused requests change nothing.
    const before = await rowCounts(dataDir);
    const anonymousOnly = actors.filter((actor) => actor.auth === null);
    const anonymousShare = Math.round(REQUESTS / 4);
    const first = await fuzzPass(server.url, anonymousOnly, {
      requests: anonymousShare,
      seed: SEED,
      concurrency: Number(args.concurrency),
      ids,
    });
    const changed = changedTables(before, await rowCounts(dataDir));
    if (changed.length > 0) problems.push(`anonymous requests changed rows of ${changed.join(", ")}`);

    const rest = await fuzzPass(
      server.url,
      actors.filter((actor) => actor.auth !== null),
      { requests: REQUESTS - anonymousShare, seed: SEED + 1, concurrency: Number(args.concurrency), ids },
    );
    // The owner reaches the most handlers.
    const sweep = await illFormedSweep(server.url, actors[0]!, {
      seed: SEED + 2,
      concurrency: Number(args.concurrency),
      ids,
    });
    const figures = merge(merge(first, rest), sweep);
    const seconds = (performance.now() - started) / 1000;

    const alive = await fetch(`${server.url}/api/v1/server_settings`).then(
      (res) => res.ok,
      () => false,
    );
    if (!alive) problems.push("the server no longer answers");
    for (const actor of actors.filter((one) => one.auth !== null)) {
      const me = await fetch(`${server.url}/api/v1/users/me`, { headers: { authorization: actor.auth! } });
      if (me.status !== 200) problems.push(`the ${actor.name}'s key no longer works (${me.status})`);
    }
    const code = await server.stop();
    server = null;
    if (code !== 0) problems.push(`the server exited with ${code} on SIGTERM`);
    log(
      `${driver}: ${figures.requests} requests over ${(await fuzzedRoutes()).length} routes in ${seconds.toFixed(1)} s, ` +
        `${figures.serverErrors} 5xx, ${figures.nonEnvelope} non-envelope answers, ` +
        `${figures.transportErrors} transport errors; statuses ${JSON.stringify(figures.byStatus)}`,
    );
    return { figures, problems };
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function merge(a: FuzzFigures, b: FuzzFigures): FuzzFigures {
  const byStatus = { ...a.byStatus };
  for (const [status, n] of Object.entries(b.byStatus)) byStatus[status] = (byStatus[status] ?? 0) + n;
  return {
    requests: a.requests + b.requests,
    byStatus,
    serverErrors: a.serverErrors + b.serverErrors,
    nonEnvelope: a.nonEnvelope + b.nonEnvelope,
    transportErrors: a.transportErrors + b.transportErrors,
    failures: [...a.failures, ...b.failures],
  };
}

/** A part on its own temporary data directory, removed afterwards. */
async function inTempDir<T>(run: (dataDir: string) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), "chatd-faults-"));
  try {
    return await run(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(failures: string[]): boolean {
  for (const failure of failures.slice(0, 20)) log(`  FAIL ${failure}`);
  if (failures.length > 20) log(`  ... and ${failures.length - 20} more`);
  return failures.length > 0;
}

const totals = {
  requests: 0,
  serverErrors: 0,
  cycles: 0,
  acknowledged: 0,
  lost: 0,
  restarts: 0,
  queues: 0,
  queuesKept: 0,
  events: 0,
  eventsLost: 0,
  duplicates: 0,
};
let failed = false;
for (const driver of DRIVERS) {
  if (PARTS.has("fuzz")) {
    const { figures, problems } = await runFuzz(driver);
    totals.requests += figures.requests;
    totals.serverErrors += figures.serverErrors;
    if (report([...problems, ...figures.failures])) failed = true;
  }
  if (PARTS.has("kill")) {
    const started = performance.now();
    const kill: KillFigures = await inTempDir((dataDir) =>
      killCycles(dataDir, driver, { cycles: CYCLES, seed: SEED, log }),
    );
    totals.requests += kill.requests;
    totals.serverErrors += kill.serverErrors;
    totals.cycles += kill.cycles;
    totals.acknowledged += kill.acknowledged;
    totals.lost += kill.lost + kill.damaged;
    log(
      `${driver}: ${kill.cycles} kill -9 cycles in ${((performance.now() - started) / 1000).toFixed(1)} s, ` +
        `${kill.acknowledged} acknowledged messages, ${kill.lost} lost, ${kill.damaged} changed, ` +
        `${kill.integrityFailures} integrity failures, ${kill.serverErrors} 5xx`,
    );
    if (report(kill.failures)) failed = true;
  }
  if (PARTS.has("restart")) {
    const started = performance.now();
    const restart: RestartFigures = await inTempDir((dataDir) =>
      restartCycles(dataDir, driver, { queues: POLLS, restarts: RESTARTS, phaseSecs: PHASE_SECS, log }),
    );
    totals.requests += restart.requests;
    totals.serverErrors += restart.serverErrors;
    totals.restarts += restart.restarts;
    totals.queues += restart.queues;
    totals.queuesKept += restart.queuesKept;
    totals.events += restart.events;
    totals.eventsLost += restart.eventsLost;
    totals.duplicates += restart.duplicates + restart.reordered;
    log(
      `${driver}: ${restart.restarts} graceful restarts under ${restart.queues} keep-alive long-polls in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s (slowest exit ${restart.slowestExitSecs.toFixed(1)} s): ` +
        `${restart.queuesKept} of ${restart.queues} queues kept, ${restart.messages} messages, ` +
        `${restart.events} events due, ${restart.eventsLost} lost, ${restart.duplicates} duplicates, ` +
        `${restart.reordered} out of order, ${restart.serverErrors} 5xx`,
    );
    if (report(restart.failures)) failed = true;
  }
  if (PARTS.has("flood")) {
    const flood = await measureLoginFlood({ env: { CHATD_DB_DRIVER: driver } });
    log(
      `${driver}: login flood (32 clients, wrong passwords, 8 s, rate limits off): a member's ` +
        `GET /messages p50 ${flood.idle_p50_ms.messages} ms idle, ${flood.flood_p50_ms.messages} ms flooded ` +
        `(${flood.messages_ratio}x); GET /users/me ${flood.idle_p50_ms.me} -> ${flood.flood_p50_ms.me} ms; ` +
        `${flood.login_attempts_per_s} logins/s ${JSON.stringify(flood.login_statuses)}; CPU while flooded: ` +
        `server ${flood.flood_cpu_s.server} s, its hashing processes ${flood.flood_cpu_s.children} s`,
    );
    const bound = flood.messages_ratio <= MAX_FLOOD_SLOWDOWN && flood.flood_samples > 0;
    if (!bound) {
      report([`GET /messages p50 under the login flood is ${flood.messages_ratio}x idle (at most 2x)`]);
      failed = true;
    }
  }
}
log(
  `faults: ${totals.requests} requests, ${totals.serverErrors} 5xx; ` +
    `${totals.cycles} kill -9 cycles, ${totals.acknowledged} acknowledged messages, ${totals.lost} lost; ` +
    `${totals.restarts} restarts, ${totals.queuesKept} of ${totals.queues} queues kept, ` +
    `${totals.events} events due, ${totals.eventsLost} lost, ${totals.duplicates} duplicated or reordered; ` +
    `${failed ? "FAILED" : "passed"}`,
);
process.exitCode = failed ? 1 : 0;
