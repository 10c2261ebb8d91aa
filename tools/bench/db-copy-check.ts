// `npm run bench -- --only dbcopy`: the bench's data set (100,000 messages) built on SQLite,
// copied with `chatd db copy --to <PostgreSQL>`, then the same GET /messages requests (every
// message of one user paged through; many narrows, anchors and searches for several users)
// asked of chatd on the SQLite file and of chatd on the copy: the answers must be the same bytes.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { buildDataset, SEARCH_WORD, TOPICS_PER_CHANNEL, type BenchUser, type Dataset } from "./dataset.js";
import { CHATD_BIN, rssMb, stopProcess, waitForHttp } from "./processes.js";
import { createDatabase } from "./postgres.js";
import { freePort } from "../../test/helpers/cli.js";
import { round } from "./stats.js";

export interface DbCopyFigures {
  rows: number;
  tables: number;
  copy_s: number;
  /** Of copy_s, the verification pass (both databases read again, a checksum per table). */
  verify_s: number;
  copy_peak_rss_mb: number;
  verified: boolean;
  requests: number;
  mismatches: number;
}

type Params = Record<string, string>;
interface Request {
  user: BenchUser;
  params: Params;
}

const basic = (u: BenchUser) => `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`;

function startServer(dataDir: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  return freePort().then(async (port) => {
    const child = spawn(
      process.execPath,
      [CHATD_BIN, "--data-dir", dataDir, "serve", "--port", String(port)],
      {
        env: { ...process.env, CHATD_LOG_LEVEL: "warn", CHATD_RATE_LIMITING: "false", ...env },
        stdio: "ignore",
      },
    );
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/api/v1/server_settings`, child, 120_000);
    return { child, url };
  });
}

/** Runs `chatd db copy --to url --json`: its answer, wall time and peak resident memory. */
async function runCopy(dataDir: string, url: string) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [CHATD_BIN, "--data-dir", dataDir, "db", "copy", "--to", url, "--json"],
    {
      env: { ...process.env, CHATD_LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  // The progress lines ("copied <table>: N row(s)") end the copy; the verification follows.
  let copiedAt = started;
  child.stderr.on("data", (c: Buffer) => {
    err += c.toString();
    if (c.toString().includes("copied ")) copiedAt = performance.now();
  });
  let peak = 0;
  const sampler = setInterval(() => {
    rssMb(child.pid!).then(
      (mb) => (peak = Math.max(peak, mb)),
      () => undefined,
    );
  }, 200);
  const code = await new Promise<number | null>((r) => child.on("exit", r));
  clearInterval(sampler);
  if (code !== 0) throw new Error(`chatd db copy exited with ${code}: ${err.slice(-2000)}`);
  const result = JSON.parse(out) as { ok: boolean; tables: Array<{ target_rows: number }> };
  const ended = performance.now();
  return {
    result,
    seconds: (ended - started) / 1000,
    verifySeconds: (ended - copiedAt) / 1000,
    peakMb: peak,
  };
}

const narrowParams = (narrow: unknown[], anchor: string | number, before: number, after: number): Params => ({
  anchor: String(anchor),
  num_before: String(before),
  num_after: String(after),
  narrow: JSON.stringify(narrow),
});

/** The narrows and anchors asked of both servers, for several kinds of user. */
function requestsFor(dataset: Dataset, firstMessageId: number): Request[] {
  const users = [0, 1, 49, 50, 120, 199].map((i) => dataset.users[i]).filter((u) => u !== undefined);
  const middle = firstMessageId + Math.floor(dataset.messages / 2);
  const requests: Request[] = [];
  for (const user of users) {
    const channel = dataset.channels.find((c) => c.subscribers.includes(user.id))!;
    const inChannel = { operator: "channel", operand: channel.id };
    const add = (params: Params) => requests.push({ user, params });
    add(narrowParams([], "newest", 100, 0));
    add(narrowParams([], "oldest", 0, 100));
    add(narrowParams([], "first_unread", 50, 50));
    add(narrowParams([], middle, 50, 50));
    add({ ...narrowParams([], middle, 20, 20), apply_markdown: "false", client_gravatar: "true" });
    add(narrowParams([{ operator: "search", operand: SEARCH_WORD }], "newest", 100, 0));
    add(narrowParams([{ operator: "search", operand: `${SEARCH_WORD} the` }], "oldest", 0, 50));
    add(narrowParams([{ operator: "search", operand: `"the ${SEARCH_WORD}"` }], "newest", 50, 0));
    add(narrowParams([inChannel, { operator: "search", operand: "time" }], middle, 30, 30));
    add(narrowParams([inChannel], "newest", 100, 0));
    add(narrowParams([inChannel], middle, 25, 25));
    for (let t = 0; t < TOPICS_PER_CHANNEL; t += 7) {
      add(narrowParams([inChannel, { operator: "topic", operand: `topic ${t}` }], "newest", 50, 0));
    }
    add(narrowParams([{ operator: "is", operand: "unread" }], "oldest", 0, 100));
    add(narrowParams([{ operator: "is", operand: "starred" }], "newest", 50, 0));
    add(narrowParams([{ operator: "is", operand: "mentioned" }], "newest", 50, 0));
    add(narrowParams([{ operator: "sender", operand: dataset.users[1]!.id }], "newest", 50, 0));
    add(narrowParams([{ operator: "dm", operand: [dataset.users[0]!.id] }], "newest", 50, 0));
    add(narrowParams([{ operator: "channels", operand: "public" }], middle, 40, 40));
  }
  return requests;
}

async function ask(url: string, request: Request): Promise<string> {
  const res = await fetch(`${url}/api/v1/messages?${new URLSearchParams(request.params).toString()}`, {
    headers: { authorization: basic(request.user) },
  });
  return `${res.status} ${await res.text()}`;
}

/** Every message `user` can see, 1,000 at a time from the oldest: each page's answer. */
async function pageThrough(url: string, user: BenchUser): Promise<string[]> {
  const pages: string[] = [];
  let anchor: string = "oldest";
  for (;;) {
    const request = { user, params: { anchor, num_before: "0", num_after: "1000", include_anchor: "false" } };
    const text = await ask(url, request);
    pages.push(text);
    const body = JSON.parse(text.slice(text.indexOf(" ") + 1)) as {
      messages?: Array<{ id: number }>;
      found_newest?: boolean;
    };
    const last = body.messages?.at(-1);
    if (!last || body.found_newest !== false) return pages;
    anchor = String(last.id);
  }
}

/** All the answers one server gives, in a fixed order. */
async function answers(url: string, dataset: Dataset, requests: Request[]): Promise<string[]> {
  const all = await pageThrough(url, dataset.users[0]!);
  for (const request of requests) all.push(await ask(url, request));
  return all;
}

export async function checkDbCopy(
  work: string,
  messages: number,
  log: (line: string) => void,
): Promise<DbCopyFigures> {
  const dataDir = join(work, "dbcopy");
  log(`\ndb copy: building ${messages} messages on SQLite`);
  const dataset = await buildDataset({ dataDir, driver: "sqlite3", users: 200, channels: 50, messages });
  const url = await createDatabase();
  log("db copy: chatd db copy --to PostgreSQL");
  const copy = await runCopy(dataDir, url);
  const rows = copy.result.tables.reduce((sum, t) => sum + t.target_rows, 0);
  log(
    `  copied ${rows} rows in ${round(copy.seconds, 1)} s, of which verifying ${round(copy.verifySeconds, 1)} s (peak RSS ${round(copy.peakMb, 0)} MB)`,
  );

  const sqlite = await startServer(dataDir, {});
  let expected: string[];
  let requests: Request[];
  try {
    const probe = JSON.parse(
      (await ask(sqlite.url, { user: dataset.users[0]!, params: narrowParams([], "oldest", 0, 1) })).slice(4),
    ) as {
      messages: Array<{ id: number }>;
    };
    requests = requestsFor(dataset, probe.messages[0]!.id);
    expected = await answers(sqlite.url, dataset, requests);
  } finally {
    await stopProcess(sqlite.child);
  }
  const postgres = await startServer(dataDir, { CHATD_DATABASE_URL: url });
  let actual: string[];
  try {
    actual = await answers(postgres.url, dataset, requests);
  } finally {
    await stopProcess(postgres.child);
  }
  let mismatches = 0;
  for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
    if (expected[i] === actual[i]) continue;
    if (mismatches++ === 0) {
      const [a, b] = [expected[i] ?? "", actual[i] ?? ""];
      let at = 0;
      while (at < a.length && a[at] === b[at]) at++;
      log(
        `  first mismatch (answer ${i}) at byte ${at}:\n    sqlite:   ${a.slice(Math.max(0, at - 80), at + 120)}\n    postgres: ${b.slice(Math.max(0, at - 80), at + 120)}`,
      );
    }
  }
  if (expected.some((a) => !a.startsWith("200 ")))
    throw new Error("db copy: a GET /messages failed on SQLite");
  return {
    rows,
    tables: copy.result.tables.length,
    copy_s: round(copy.seconds, 1),
    verify_s: round(copy.verifySeconds, 1),
    copy_peak_rss_mb: round(copy.peakMb, 0),
    verified: copy.result.ok,
    requests: expected.length,
    mismatches,
  };
}

/** The check's figures as benchmark scenarios (database: postgres). */
export async function dbCopyScenarios(work: string, messages: number, log: (line: string) => void) {
  const f = await checkDbCopy(work, messages, log);
  const scenario = (name: string, value: number, unit: string, target = "") => ({
    name,
    value,
    unit,
    baseline: null,
    ratio: null,
    database: "postgres" as const,
    target,
  });
  return [
    scenario("dbcopy_rows", f.rows, `rows (${f.tables} tables)`),
    scenario("dbcopy_s", f.copy_s, "s (copy and verification)"),
    scenario("dbcopy_verify_s", f.verify_s, "s"),
    scenario("dbcopy_peak_rss_mb", f.copy_peak_rss_mb, "MB"),
    scenario("dbcopy_verified", f.verified ? 1 : 0, "(1: every table's rows and SHA-256 match)", "1"),
    scenario("dbcopy_messages_answers_compared", f.requests, "GET /messages answers"),
    scenario("dbcopy_messages_mismatches", f.mismatches, "answers", "0"),
  ];
}
