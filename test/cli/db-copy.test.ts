import { rmSync } from "node:fs";
import { expect } from "chai";
import pg from "pg";
import { testConfig } from "../../src/config.js";
import { createKnex } from "../../src/db/knex.js";
import { lockDataDir } from "../../src/db/server-lock.js";
import { plannedTables } from "../../src/cli/db-copy/tables.js";
import { verifyTables } from "../../src/cli/db-copy/verify.js";
import { progressReporter } from "../../src/cli/db-copy/progress.js";
import { cast, createChannel } from "../helpers/channels.js";
import { chatd } from "../helpers/cli.js";
import { Client, expectSuccess } from "../helpers/client.js";
import type { TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { createEmptyDatabase, onPostgres, setUpPostgres, tearDownPostgres } from "../helpers/postgres.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { upload } from "../helpers/uploads.js";

/** `chatd db copy`: a SQLite data directory into PostgreSQL (the embedded server of test/helpers/postgres.ts). */

const ALL = { anchor: "newest", num_before: 1000, num_after: 0 };
const SEARCH = { ...ALL, narrow: JSON.stringify([{ operator: "search", operand: "zanzibar" }]) };

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** The URL's password as it would appear in it (the data directory's name holds "chatd-test" too). */
const secret = (url: string) => `:${new URL(url).password}@`;

/** The same user's client on another server (the API key is copied with the database). */
const on = (server: TestServer, user: TestUser) => new Client(server.url, user.client.credentials);

/** On the PostgreSQL suite the test servers have no SQLite data directory to copy from. */
const skipped = onPostgres() ? " (skipped: SQLite suite only, the source is a SQLite data directory)" : "";

describe(`chatd db copy --to postgres://${skipped}`, function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  const started: TestServer[] = [];
  let ownCluster = false;
  let source: TestServer;
  let u: ReturnType<typeof cast>;
  let target: string;
  let copiedMessages = 0;

  before(async function () {
    if (skipped) return this.skip();
    // The SQLite suite has no PostgreSQL of its own: start the embedded one for this file.
    ownCluster = true;
    await setUpPostgres();
    source = await startTestServer({}, { keepDataDir: true });
    dirs.push(source.dataDir);
    u = cast(await source.factory.realm());
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.iago]);
    const url = await upload(u.hamlet, "notes.txt", Buffer.from("kept across the move"));
    const ids: number[] = [];
    for (let i = 0; i < 300; i++) {
      ids.push(
        await sendToChannel(u.hamlet, "Denmark", `topic ${i % 7}`, `message ${i} with **markdown** é`),
      );
    }
    ids.push(await sendToChannel(u.othello, "Denmark", "travel", `off to zanzibar, see [notes](${url})`));
    ids.push(await sendDirect(u.iago, [u.hamlet], "a direct word about Zanzibar"));
    for (const id of ids.slice(0, 40)) {
      expectSuccess(await u.othello.client.post(`/messages/${id}/reactions`, { emoji_name: "smile" }));
    }
    expectSuccess(
      await u.hamlet.client.post("/messages/flags", {
        messages: JSON.stringify(ids.slice(10, 30)),
        op: "add",
        flag: "starred",
      }),
    );
    expectSuccess(await u.hamlet.client.patch(`/messages/${ids[5]}`, { content: "edited once" }));
    await source.stop();
    target = await createEmptyDatabase();
  });

  after(async function () {
    for (const server of started) await server.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    if (ownCluster) {
      await tearDownPostgres();
      delete process.env.CHATD_TEST_PG_SERVER;
      delete process.env.CHATD_TEST_PG_PREFIX;
    }
  });

  it("refuses while the server holds the data directory, and touches nothing", async function () {
    const lock = await lockDataDir(testConfig(source.dataDir));
    try {
      const run = await chatd(["--data-dir", source.dataDir, "db", "copy", "--to", target]);
      expect(run.code).to.equal(1);
      expect(run.stderr).to.contain("server is running");
    } finally {
      await lock!.release();
    }
    expect(
      await query(target, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"),
    ).to.deep.equal([]);
  });

  it("copies every table, verifies each, and a server on PostgreSQL serves the same messages and search", async function () {
    const before = await startTestServer({}, { dataDir: source.dataDir });
    const expected = expectSuccess(await on(before, u.hamlet).get("/messages", ALL));
    const expectedSearch = expectSuccess(await on(before, u.hamlet).get("/messages", SEARCH));
    await before.stop();
    expect(expectedSearch.messages).to.have.length(2);

    const run = await chatd(["--data-dir", source.dataDir, "db", "copy", "--to", target, "--json"]);
    expect(run.stdout + run.stderr).not.to.contain(secret(target));
    expect(run.code, run.stderr).to.equal(0);
    const report = JSON.parse(run.stdout) as {
      ok: boolean;
      tables: Array<{ table: string; source_rows: number; target_rows: number; match: boolean }>;
    };
    expect(report.ok).to.equal(true);
    const rows = new Map(report.tables.map((t) => [t.table, t]));
    // The 302 sent, and the realm's own (the welcome message).
    copiedMessages = rows.get("messages")!.source_rows;
    expect(copiedMessages).to.be.within(302, 305);
    expect(rows.get("reactions")!.target_rows).to.equal(40);
    expect(rows.get("attachments")!.target_rows).to.equal(1);
    expect(rows.get("user_messages")!.target_rows).to.be.greaterThan(302);
    expect(report.tables.every((t) => t.match && t.source_rows === t.target_rows)).to.equal(true);

    const moved = await startTestServer({ database_url: target }, { dataDir: source.dataDir });
    started.push(moved);
    expect(expectSuccess(await on(moved, u.hamlet).get("/messages", ALL))).to.deep.equal(expected);
    expect(expectSuccess(await on(moved, u.hamlet).get("/messages", SEARCH))).to.deep.equal(expectedSearch);
    // Sequences continue after the copied IDs.
    const next = await sendToChannel(
      { ...u.hamlet, client: on(moved, u.hamlet) },
      "Denmark",
      "after",
      "the first message on PostgreSQL",
    );
    const [row] = await query<{ max: string }>(
      target,
      `SELECT max(id) AS max FROM messages WHERE id <> ${next}`,
    );
    expect(next).to.be.greaterThan(Number(row!.max));
  });

  it("prints a verification table and progress lines without --json", async function () {
    const fresh = await createEmptyDatabase();
    const run = await chatd(["--data-dir", source.dataDir, "db", "copy", "--to", fresh]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.contain(`copied messages: ${copiedMessages} row(s)`);
    expect(run.stdout).to.match(
      new RegExp(`^messages\\s+${copiedMessages}\\s+${copiedMessages}\\s+[0-9a-f]{16} ok$`, "m"),
    );
    expect(run.stderr).to.contain(":***@");
    expect(run.stdout + run.stderr).not.to.contain(secret(fresh));
  });

  it("verification tells a table whose rows differ, by checksum even when the counts agree", async function () {
    const copy = await createEmptyDatabase();
    expect((await chatd(["--data-dir", source.dataDir, "db", "copy", "--to", copy])).code).to.equal(0);
    await query(
      copy,
      "UPDATE messages SET content = content || '!' WHERE id = (SELECT min(id) FROM messages)",
    );
    const from = createKnex(testConfig(source.dataDir));
    const to = createKnex(testConfig(source.dataDir, { database_url: copy }));
    try {
      const checks = await verifyTables(from, to, await plannedTables(from, to));
      expect(checks.filter((c) => !c.match).map((c) => c.table)).to.deep.equal(["messages"]);
      const messages = checks.find((c) => c.table === "messages")!;
      expect(messages.source_rows).to.equal(messages.target_rows);
    } finally {
      await from.destroy();
      await to.destroy();
    }
  });

  it("refuses a target that is not empty, and changes nothing in it", async function () {
    const count = async (url: string) =>
      (await query<{ n: string }>(url, "SELECT count(*) AS n FROM messages"))[0]!.n;
    const before = await count(target);
    const again = await chatd(["--data-dir", source.dataDir, "db", "copy", "--to", target]);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.contain("is not empty");
    expect(again.stderr).not.to.contain(secret(target));
    expect(await count(target)).to.equal(before);

    const foreign = await createEmptyDatabase();
    await query(foreign, "CREATE TABLE other (x int); INSERT INTO other VALUES (1)");
    const refused = await chatd(["--data-dir", source.dataDir, "db", "copy", "--to", foreign]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain("not chatd's");
    const tables = await query(
      foreign,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    expect(tables).to.deep.equal([{ table_name: "other" }]);
  });
});

describe("chatd db copy progress", function () {
  const capture = (isTTY: boolean) => {
    const written: string[] = [];
    const stream = { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream;
    return { written, progress: progressReporter(stream) };
  };

  it("draws a bar in place on a terminal, ending each table on its own line", function () {
    const { written, progress } = capture(true);
    progress.advance("messages", 500, 1000);
    progress.finish("messages", 1000);
    const text = written.join("");
    expect(text).to.contain("\r");
    expect(text).to.contain("messages 500/1000");
    expect(text).to.match(/messages 1000\/1000\n$/);
  });

  it("prints one plain line per table otherwise", function () {
    const { written, progress } = capture(false);
    progress.advance("messages", 500, 1000);
    progress.finish("messages", 1000);
    expect(written).to.deep.equal(["copied messages: 1000 row(s)\n"]);
  });
});
