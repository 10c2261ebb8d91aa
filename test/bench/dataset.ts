// Builds the benchmark data set in a data directory, before the server starts: a realm
// with 200 users (through the real actions), and (see seedMessages) channels,
// subscriptions and messages through a bulk path.
import { mkdirSync } from "node:fs";
import { closeApp, createApp } from "../../src/server/create-app.js";
import { type App } from "../../src/app.js";
import { checkInitRealm } from "../../src/actions/init.js";
import { doIssueApiKey } from "../../src/actions/api-keys.js";
import { doCreateUser } from "../../src/actions/users.js";
import { checkCreateChannel } from "../../src/actions/channel-create.js";
import type { Knex } from "knex";
import { RECIPIENT_TYPE } from "../../src/db/channel-rows.js";
import { bulkInsert } from "../../src/db/insert.js";
import type { UserRow } from "../../src/db/rows.js";
import { indexMessages, type SearchDocument } from "../../src/db/search.js";
import { isPostgres } from "../../src/db/dialect.js";
import { MESSAGE_FLAG_BITS } from "../../src/lib/message-flags.js";
import { loadConfig } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";

export interface BenchUser {
  id: number;
  email: string;
  apiKey: string;
}

export interface Dataset {
  dataDir: string;
  users: BenchUser[];
  /** Channel every user is subscribed to (the 50-subscriber one is the first channel). */
  channels: Array<{ id: number; name: string; subscribers: number[] }>;
  messages: number;
}

export interface DatasetOptions {
  dataDir: string;
  driver: "sqlite3" | "better-sqlite3";
  users: number;
  channels: number;
  messages: number;
  /** A PostgreSQL database (empty) to build it in instead of the data directory's SQLite file. */
  databaseUrl?: string;
}

export async function buildDataset(options: DatasetOptions): Promise<Dataset> {
  mkdirSync(options.dataDir, { recursive: true });
  const config = loadConfig({
    dataDir: options.dataDir,
    env: {},
    overrides: {
      db_driver: options.driver,
      log_level: "silent",
      ...(options.databaseUrl ? { database_url: options.databaseUrl } : {}),
    },
  });
  const app = await createApp(config, { logger: silentLogger });
  try {
    const owner = await checkInitRealm(app, {
      realmName: "Bench",
      ownerEmail: "user0@bench.test",
      ownerName: "User 0",
      ownerPassword: "bench-password",
    });
    const realmId = (await app.realms.primaryRealm(app.knex))!.realm.id;
    const users: BenchUser[] = [{ id: owner.user_id, email: owner.email, apiKey: owner.api_key }];
    for (let i = 1; i < options.users; i++) {
      users.push(
        await app.db.transaction(async (tx) => {
          const user = await doCreateUser(app, tx, {
            realmId,
            email: `user${i}@bench.test`,
            fullName: `User ${i}`,
          });
          return { id: user.id, email: user.email, apiKey: await doIssueApiKey(app, tx, user.id, "bench") };
        }),
      );
    }
    const seeded =
      options.channels > 0 ? await seedMessages(app, realmId, users, options) : { channels: [], messages: 0 };
    return { dataDir: options.dataDir, users, ...seeded };
  } finally {
    await closeApp(app);
  }
}

/** Words messages are made of; SEARCH_WORD appears in about one message in a hundred. */
const VOCABULARY = (
  "the a of to and in that is was he for it with as his on be at by had not are but from or have an they " +
  "which one you were her all she there would their we him been has when who will more no if out so said " +
  "what up its about into than them can only other new some could time these two may then do first any my " +
  "now such like our over man me even most made after also did many before must through back years where much"
).split(" ");
export const SEARCH_WORD = "lighthouse";
export const TOPICS_PER_CHANNEL = 20;

/** A small deterministic PRNG (mulberry32), so every run builds the same data set. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Who subscribes where: the first channel has exactly users 0-49 (the 50-subscriber
 * channel); users 0-49 also hold 19 more channels (20 subscriptions), the others 4.
 */
function subscribersOf(channels: number, users: number): number[][] {
  const members: number[][] = Array.from({ length: channels }, () => []);
  for (let u = 0; u < users; u++) {
    if (u < 50) members[0]!.push(u);
    const count = u < 50 ? 19 : 4;
    for (let k = 0; k < count; k++) members[1 + ((u * 3 + k) % (channels - 1))]!.push(u);
  }
  return members;
}

/**
 * Channels through the real action (with their creation notices), then messages, their
 * per-user flags and their search index through bulk inserts, a batch per transaction.
 * Every message is read except each channel's newest 50.
 */
async function seedMessages(
  app: App,
  realmId: number,
  users: BenchUser[],
  options: DatasetOptions,
): Promise<Pick<Dataset, "channels" | "messages">> {
  const owner = await app.knex("users").where({ id: users[0]!.id }).first<UserRow>();
  const channels: Dataset["channels"] = [];
  for (const [i, members] of subscribersOf(options.channels, users.length).entries()) {
    const name = i === 0 ? "fifty" : `channel ${i}`;
    const subscribers = members.map((u) => users[u]!.id);
    const creation = { invite_only: false, is_web_public: false, is_default_stream: false, groups: {} };
    const id = await checkCreateChannel(app, owner, {
      name,
      description: "",
      subscribers,
      announce: false,
      creation,
    });
    channels.push({ id, name, subscribers });
  }
  const recipients = new Map(
    (
      await app
        .knex("recipients")
        .where({ type: RECIPIENT_TYPE.STREAM })
        .select<Array<{ id: number; type_id: number }>>("id", "type_id")
    ).map((r) => [r.type_id, r.id]),
  );
  const next = random(42);
  const firstId = ((await app.knex("messages").max<{ id: number }>("id as id").first())?.id ?? 0) + 1;
  const start = Math.floor(Date.now() / 1000) - options.messages;
  const BATCH = 5000;
  for (let offset = 0; offset < options.messages; offset += BATCH) {
    const messages: Knex.Value[][] = [];
    const flags: Knex.Value[][] = [];
    const docs: SearchDocument[] = [];
    for (let n = offset; n < Math.min(offset + BATCH, options.messages); n++) {
      const id = firstId + n;
      const channel = channels[n % channels.length]!;
      const topic = `topic ${Math.floor(next() * TOPICS_PER_CHANNEL)}`;
      const words = Array.from(
        { length: 8 + Math.floor(next() * 12) },
        () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]!,
      );
      if (next() < 0.01) words.splice(3, 0, SEARCH_WORD);
      const content = words.join(" ");
      const sender = channel.subscribers[Math.floor(next() * channel.subscribers.length)]!;
      messages.push([
        id,
        realmId,
        sender,
        recipients.get(channel.id)!,
        channel.id,
        topic,
        topic,
        content,
        `<p>${content}</p>`,
        start + n,
        "bench",
      ]);
      const unread = n >= options.messages - 50 * channels.length;
      for (const userId of channel.subscribers)
        flags.push([userId, id, unread && userId !== sender ? 0 : MESSAGE_FLAG_BITS.read]);
      docs.push({ id, topic, text: content });
    }
    await app.knex.transaction(async (trx) => {
      await bulkInsert(
        trx,
        "messages",
        [
          "id",
          "realm_id",
          "sender_id",
          "recipient_id",
          "stream_id",
          "topic",
          "topic_key",
          "content",
          "rendered_content",
          "date_sent",
          "sending_client",
        ],
        messages,
        400,
      );
      await bulkInsert(trx, "user_messages", ["user_id", "message_id", "flags"], flags, 300);
      await indexMessages(trx, docs);
    });
  }
  // The messages took explicit IDs: PostgreSQL's sequence must continue after them.
  if (isPostgres(app.knex)) {
    await app.knex.raw(
      "SELECT setval(pg_get_serial_sequence('messages', 'id'), (SELECT max(id) FROM messages))",
    );
  }
  return { channels, messages: options.messages };
}
