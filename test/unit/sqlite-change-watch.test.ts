import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import knexFactory, { type Knex } from "knex";
import { watchExternalChanges } from "../../src/db/sqlite-change-watch.js";

/** One connection to `path`, as the server's writer and an admin command each hold. */
const connect = (path: string): Knex =>
  knexFactory({
    client: "sqlite3",
    connection: { filename: path },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 },
  });

describe("the SQLite external-change watch (PRAGMA data_version)", function () {
  let dir: string;
  let server: Knex;
  let command: Knex;

  beforeEach(async function () {
    dir = mkdtempSync(join(tmpdir(), "chatd-change-watch-"));
    const path = join(dir, "watch.sqlite3");
    server = connect(path);
    command = connect(path);
    // WAL, as chatd runs it: a writer commits while another connection reads.
    await server.raw("PRAGMA journal_mode = WAL");
    await server.raw("CREATE TABLE notes (id INTEGER PRIMARY KEY)");
  });
  afterEach(async function () {
    await server.destroy();
    await command.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const until = async (condition: () => boolean) => {
    for (let waited = 0; !condition() && waited < 2000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it("is armed when it resolves: another connection's commit right after is noticed", async function () {
    let changes = 0;
    // The baseline read is slow to run (the server's one writer connection is busy): a
    // watch that counted as armed before reading it would take the commit below for its
    // baseline and never notice it.
    let release!: () => void;
    const busy = new Promise<void>((resolve) => (release = resolve));
    const slow = { raw: (sql: string) => busy.then(() => server.raw(sql)) } as unknown as Knex;
    const watching = watchExternalChanges(slow, 20, () => changes++);
    setTimeout(release, 50);
    const stop = await watching;
    try {
      await command("notes").insert({ id: 1 });
      await until(() => changes > 0);
      expect(changes).to.equal(1);
    } finally {
      stop();
    }
  });

  it("does not count the watching connection's own commits", async function () {
    let changes = 0;
    const stop = await watchExternalChanges(server, 20, () => changes++);
    try {
      await server("notes").insert({ id: 2 });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(changes).to.equal(0);
      await command("notes").insert({ id: 3 });
      await until(() => changes > 0);
      expect(changes).to.equal(1);
    } finally {
      stop();
    }
  });
});
