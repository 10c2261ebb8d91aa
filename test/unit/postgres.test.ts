import { expect } from "chai";
import type { Knex } from "knex";
import { parseDatabaseUrl, redactDatabaseUrl, testConfig } from "../../src/config.js";
import { createKnex, createReadPool } from "../../src/db/knex.js";
import { migrateLatest, migrationStatus } from "../../src/db/migrate.js";
import { watchExternalChanges } from "../../src/db/change-watch.js";
import { indexMessages, reindexMessages, removeFromIndex, whereMatches } from "../../src/db/search.js";
import { Db } from "../../src/db/tx.js";
import { systemClock } from "../../src/clock.js";
import { parseSearchQuery } from "../../src/lib/search.js";
import { MIGRATIONS } from "../../migrations/index.js";
import { createEmptyDatabase, dropTestDatabase, onPostgres, postgresOnly } from "../helpers/postgres.js";

describe("database_url", function () {
  it("accepts postgres:// URLs with a host and a database, or empty for SQLite", function () {
    expect(parseDatabaseUrl("")).to.equal(null);
    expect(parseDatabaseUrl("postgres://u:p@db.example:5432/chatd")?.hostname).to.equal("db.example");
    expect(parseDatabaseUrl("postgresql://db/chatd")?.pathname).to.equal("/chatd");
  });

  it("refuses other URLs without repeating them (they may hold a password)", function () {
    for (const bad of ["mysql://u:s3cret@h/db", "postgres://u:s3cret@h", "not a url s3cret"]) {
      expect(() => parseDatabaseUrl(bad))
        .to.throw()
        .with.property("message")
        .that.does.not.include("s3cret");
    }
  });

  it("is shown without its password", function () {
    expect(redactDatabaseUrl("postgres://chatd:s3cret@db:5432/chatd")).to.equal(
      "postgres://chatd:***@db:5432/chatd",
    );
    expect(redactDatabaseUrl("postgres://db/chatd")).to.equal("postgres://db/chatd");
  });
});

describe("PostgreSQL backend", function () {
  let url: string;
  let knex: Knex;
  before(async function () {
    postgresOnly(this, "run npm run test:postgres");
    url = await createEmptyDatabase();
    knex = createKnex(testConfig("/nonexistent", { database_url: url }));
  });
  after(async function () {
    if (!onPostgres()) return;
    await knex.destroy();
    await dropTestDatabase(url);
  });

  it("migrates an empty database to the latest schema, idempotently", async function () {
    expect(await migrateLatest(knex)).to.deep.equal(MIGRATIONS.map(([name]) => name));
    expect(await migrateLatest(knex)).to.deep.equal([]);
    expect((await migrationStatus(knex)).pending).to.deep.equal([]);
  });

  it("holds 64-bit integers everywhere, as SQLite does", async function () {
    const narrow = await knex("information_schema.columns")
      .where({ table_schema: knex.raw("current_schema()"), data_type: "integer" })
      .pluck("column_name");
    expect(narrow).to.deep.equal([]);
    const [{ big }] = (await knex.raw("SELECT count(*) AS big FROM messages WHERE id < ?", [10 ** 16]))
      .rows as [{ big: unknown }];
    // count(*) is a bigint, read as a number like every int8.
    expect(big).to.equal(0);
  });

  it("reads booleans as 1/0, as SQLite gives them", async function () {
    const { rows } = await knex.raw<{ rows: unknown[] }>("SELECT true AS yes, false AS no");
    expect(rows).to.deep.equal([{ yes: 1, no: 0 }]);
  });

  it("searches stemmed words in content or topic, phrases within one of them, with all terms required", async function () {
    await indexMessages(knex, [
      { id: 1, topic: "deploys", text: "The deployment is running late" },
      { id: 2, topic: "lunch", text: "Who runs to the café?" },
      { id: 3, topic: "new york", text: "pizza tonight" },
      { id: 4, topic: "x", text: "a".repeat(3000) },
    ]);
    const search = async (q: string): Promise<number[]> => {
      const rows: Array<{ id: number }> = await whereMatches(
        knex,
        knex("message_search").select("message_id as id"),
        "message_id",
        parseSearchQuery(q).terms,
      ).orderBy("id");
      return rows.map((r) => r.id);
    };
    expect(await search("run")).to.deep.equal([1, 2]);
    expect(await search("cafe run")).to.deep.equal([2]);
    expect(await search("deploy")).to.deep.equal([1]);
    expect(await search('"new york"')).to.deep.equal([3]);
    expect(await search('"york new"')).to.deep.equal([]);
    // A phrase does not run from the topic into the content.
    expect(await search('"york pizza"')).to.deep.equal([]);
    expect(await search("a".repeat(3000))).to.deep.equal([4]);
    await reindexMessages(knex, [{ id: 3, topic: "dinner", text: "Chicago pizza" }]);
    expect(await search("york")).to.deep.equal([]);
    expect(await search("chicago")).to.deep.equal([3]);
    await removeFromIndex(knex, [1, 2]);
    expect(await search("run")).to.deep.equal([]);
  });

  it("lets one write transaction at a time run, across connections (the write lock)", async function () {
    const other = createKnex(testConfig("/nonexistent", { database_url: url }));
    try {
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let began!: () => void;
      const first = knex.transaction(async () => {
        order.push("first begins");
        began();
        await held;
        order.push("first commits");
      });
      await new Promise<void>((r) => (began = r));
      const second = other.transaction(() => Promise.resolve(void order.push("second begins")));
      await new Promise((r) => setTimeout(r, 200));
      expect(order).to.deep.equal(["first begins"]);
      release();
      await Promise.all([first, second]);
      expect(order).to.deep.equal(["first begins", "first commits", "second begins"]);
    } finally {
      await other.destroy();
    }
  });

  it("tells a server of an admin command's commit (LISTEN/NOTIFY), and of nothing rolled back", async function () {
    const reader = createReadPool(testConfig("/nonexistent", { database_url: url }));
    let changes = 0;
    const stop = await watchExternalChanges(knex, 100, () => changes++);
    const sink = { send: () => undefined };
    const admin = new Db(reader, sink, systemClock, reader, true);
    try {
      await admin.transaction(() => Promise.resolve());
      await admin.transaction(() => Promise.reject(new Error("rolled back"))).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      expect(changes).to.equal(1);
    } finally {
      stop();
      await reader.destroy();
    }
  });

  it("never names the password in a connection failure", async function () {
    const wrong = new URL(url);
    wrong.password = "not-the-s3cret";
    const bad = createKnex(testConfig("/nonexistent", { database_url: wrong.toString() }));
    try {
      const err = await bad.raw("SELECT 1").then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(err).to.be.instanceOf(Error);
      expect(String(err!.message) + String(err!.stack)).to.not.include("not-the-s3cret");
    } finally {
      await bad.destroy();
    }
  });
});
