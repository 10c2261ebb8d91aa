import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Knex } from "knex";
import { testConfig } from "../../src/config.js";
import { createKnex } from "../../src/db/knex.js";
import { migrateLatest, migrationStatus } from "../../src/db/migrate.js";
import { MIGRATIONS } from "../../migrations/index.js";

describe("database: migrations and connection settings", function () {
  let dir: string;
  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), "chatd-migrate-"));
  });
  afterEach(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  for (const driver of ["sqlite3", "better-sqlite3"] as const) {
    it(`migrates an empty database to the latest schema, idempotently (${driver})`, async function () {
      const knex = createKnex(testConfig(dir, { db_driver: driver }));
      try {
        expect(await migrateLatest(knex)).to.deep.equal(MIGRATIONS.map(([name]) => name));
        expect(await migrateLatest(knex)).to.deep.equal([]);
        expect(await migrationStatus(knex)).to.deep.equal({
          applied: MIGRATIONS.map(([name]) => name),
          pending: [],
        });
        for (const table of [
          "realms",
          "users",
          "api_keys",
          "user_groups",
          "streams",
          "subscriptions",
          "messages",
          "user_messages",
          "reactions",
          "submessages",
        ]) {
          expect(await knex.schema.hasTable(table), table).to.equal(true);
        }
      } finally {
        await knex.destroy();
      }
    });

    it(`opens connections in WAL mode with synchronous=FULL and foreign keys on (${driver})`, async function () {
      const knex = createKnex(testConfig(dir, { db_driver: driver }));
      try {
        const pragma = async (name: string) => {
          const rows: Array<Record<string, unknown>> = await knex.raw(`PRAGMA ${name}`);
          return Object.values(rows[0]!)[0];
        };
        expect(await pragma("journal_mode")).to.equal("wal");
        expect(await pragma("synchronous")).to.equal(2);
        expect(await pragma("foreign_keys")).to.equal(1);
        expect(await pragma("busy_timeout")).to.equal(5000);
      } finally {
        await knex.destroy();
      }
    });
  }

  it("has indexes for message fetches by channel/topic, recipient and unread flags", async function () {
    const knex = createKnex(testConfig(dir));
    try {
      await migrateLatest(knex);
      const indexes: Array<{ name: string; sql: string | null }> = await knex.raw(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index'",
      );
      const sql = indexes.map((i) => i.sql ?? "").join("\n");
      expect(sql).to.match(/messages.*\(`stream_id`, `topic_key`, `id`\)/);
      expect(sql).to.match(/messages.*\(`recipient_id`, `id`\)/);
      expect(sql).to.match(
        /user_messages_unread ON user_messages \(user_id, message_id\) WHERE \(flags & 1\) = 0/,
      );
    } finally {
      await knex.destroy();
    }
  });

  it("gives existing realms their settings for new users, and existing users those defaults", async function () {
    const knex = createKnex(testConfig(dir));
    const upTo = (name: string): Knex.MigratorConfig => ({
      migrationSource: {
        getMigrations: () =>
          Promise.resolve(
            MIGRATIONS.slice(
              0,
              MIGRATIONS.findIndex(([n]) => n === name),
            ),
          ),
        getMigrationName: ([n]: (typeof MIGRATIONS)[number]) => n,
        getMigration: ([, m]: (typeof MIGRATIONS)[number]) => Promise.resolve(m),
      },
    });
    try {
      await knex.migrate.latest(upTo("20261125000200_user_settings"));
      const [realmId] = (await knex("realms").insert({ string_id: "old", name: "Old", date_created: 0 })) as [
        number,
      ];
      await knex("users").insert({
        realm_id: realmId,
        email: "old@example.com",
        delivery_email: "old@example.com",
        full_name: "Old Timer",
        date_joined: 0,
        presence_enabled: false,
      });
      await migrateLatest(knex);
      const defaults = await knex("realm_user_settings_defaults").where({ realm_id: realmId }).first();
      expect(defaults).to.include({
        emojiset: "google",
        email_address_visibility: 1,
        default_language: "en",
      });
      const user = await knex("users").where({ email: "old@example.com" }).first();
      expect(user).to.include({ emojiset: "google", send_read_receipts: 1, presence_enabled: 0 });
      expect(user.twenty_four_hour_time).to.equal(0);
    } finally {
      await knex.destroy();
    }
  });
});
