// Baseline (b): the raw write limit of the configured driver through Knex: messages with
// 50 recipient flag rows each, inserted in transactions of 100 messages, on a fresh
// database with chatd's schema and connection settings (SQLite, or the empty PostgreSQL
// database in `databaseUrl`). Prints {msgs_per_sec}.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testConfig } from "../../../src/config.js";
import { createKnex } from "../../../src/db/knex.js";
import { insertReturningId } from "../../../src/db/insert.js";
import { migrateLatest } from "../../../src/db/migrate.js";
import { readInput } from "../processes.js";

interface Input {
  driver: "sqlite3" | "better-sqlite3";
  seconds: number;
  databaseUrl?: string;
}
const input = readInput<Input>();
const dir = mkdtempSync(join(tmpdir(), "chatd-bench-write-"));
const knex = createKnex(
  testConfig(dir, {
    db_driver: input.driver,
    ...(input.databaseUrl ? { database_url: input.databaseUrl } : {}),
  }),
);
try {
  await migrateLatest(knex);
  const now = Math.floor(Date.now() / 1000);
  await knex("realms").insert({ id: 1, string_id: "b", name: "b", date_created: now });
  await knex("users").insert(
    Array.from({ length: 50 }, (_, i) => ({
      id: i + 1,
      realm_id: 1,
      email: `u${i}@b.test`,
      delivery_email: `u${i}@b.test`,
      full_name: `U${i}`,
      date_joined: now,
    })),
  );
  await knex("recipients").insert({ id: 1, type: 2, type_id: 1 });
  const content = "Hello world, this is a benchmark message of a typical length for a chat.";
  let sent = 0;
  const started = performance.now();
  while (performance.now() - started < input.seconds * 1000) {
    await knex.transaction(async (trx) => {
      for (let m = 0; m < 100; m++) {
        const messageId = await insertReturningId(trx, "messages", {
          realm_id: 1,
          sender_id: 1,
          recipient_id: 1,
          stream_id: 1,
          topic: "t",
          topic_key: "t",
          content,
          rendered_content: `<p>${content}</p>`,
          date_sent: now,
        });
        await trx("user_messages").insert(
          Array.from({ length: 50 }, (_, u) => ({
            user_id: u + 1,
            message_id: messageId,
            flags: u === 0 ? 1 : 0,
          })),
        );
      }
    });
    sent += 100;
  }
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ msgs_per_sec: sent / seconds })}\n`);
} finally {
  await knex.destroy();
  rmSync(dir, { recursive: true, force: true });
}
