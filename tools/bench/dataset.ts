// Builds the benchmark data set in a data directory, before the server starts: a realm
// with 200 users (through the real actions), and (see seedMessages) channels,
// subscriptions and messages through a bulk path. Its steps are exported for other data
// sets (users/dataset.ts): openBenchApp, initBenchRealm, createBenchUser, createBenchChannel,
// channelRecipients, nextMessageId, insertMessages and random.
import { mkdirSync } from "node:fs";
import { closeApp, createApp } from "../../src/server/create-app.js";
import { type App } from "../../src/app.js";
import { checkInitRealm } from "../../src/actions/init.js";
import { doIssueApiKey } from "../../src/actions/api-keys.js";
import { doCreateUser } from "../../src/actions/user-create.js";
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
  const app = await openBenchApp(options);
  try {
    const { realmId, owner } = await initBenchRealm(app);
    const users: BenchUser[] = [owner];
    for (let i = 1; i < options.users; i++) users.push(await createBenchUser(app, realmId, i));
    const seeded =
      options.channels > 0 ? await seedMessages(app, realmId, users, options) : { channels: [], messages: 0 };
    return { dataDir: options.dataDir, users, ...seeded };
  } finally {
    await closeApp(app);
  }
}

/**
 * chatd's App on a benchmark data directory (created if missing), logging nothing; on
 * `databaseUrl` (an empty PostgreSQL database) instead of the directory's SQLite file.
 * The caller closes it (closeApp).
 */
export async function openBenchApp(options: {
  dataDir: string;
  driver: "sqlite3" | "better-sqlite3";
  databaseUrl?: string;
}): Promise<App> {
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
  return createApp(config, { logger: silentLogger });
}

/** The realm "Bench" and its owner, user0@bench.test, through the real init action. */
export async function initBenchRealm(app: App): Promise<{ realmId: number; owner: BenchUser }> {
  const owner = await checkInitRealm(app, {
    realmName: "Bench",
    ownerEmail: "user0@bench.test",
    ownerName: "User 0",
    ownerPassword: "bench-password",
  });
  const realmId = (await app.realms.primaryRealm(app.knex))!.realm.id;
  return { realmId, owner: { id: owner.user_id, email: owner.email, apiKey: owner.api_key } };
}

/** user<i>@bench.test ("User <i>") through the real action, with an API key of its own. */
export function createBenchUser(app: App, realmId: number, i: number): Promise<BenchUser> {
  return app.db.transaction(async (tx) => {
    const user = await doCreateUser(app, tx, {
      realmId,
      email: `user${i}@bench.test`,
      fullName: `User ${i}`,
    });
    return { id: user.id, email: user.email, apiKey: await doIssueApiKey(app, tx, user.id, "bench") };
  });
}

/** A public channel created by `owner` through the real action (with its creation notice); its ID. */
export function createBenchChannel(
  app: App,
  owner: UserRow,
  name: string,
  subscribers: number[],
): Promise<number> {
  const creation = { invite_only: false, is_web_public: false, is_default_stream: false, groups: {} };
  return checkCreateChannel(app, owner, { name, description: "", subscribers, announce: false, creation });
}

/** Recipient IDs of channels (all, or those of `channelIds`), by channel ID. */
export async function channelRecipients(
  app: App,
  channelIds?: readonly number[],
): Promise<Map<number, number>> {
  const query = app.knex("recipients").where({ type: RECIPIENT_TYPE.STREAM });
  if (channelIds) query.whereIn("type_id", channelIds);
  const rows = await query.select<Array<{ id: number; type_id: number }>>("id", "type_id");
  return new Map(rows.map((r) => [r.type_id, r.id]));
}

/** The ID after the newest message: bulk-inserted messages take explicit IDs from it. */
export async function nextMessageId(app: App): Promise<number> {
  return ((await app.knex("messages").max<{ id: number }>("id as id").first())?.id ?? 0) + 1;
}

/** One channel message of the bulk path (insertMessages). */
export interface BulkMessage {
  id: number;
  realmId: number;
  senderId: number;
  channelId: number;
  /** The channel's recipient ID (channelRecipients). */
  recipientId: number;
  topic: string;
  /** Plain words: rendered as one paragraph. */
  content: string;
  dateSent: number;
  /** Who gets a user_messages row: the channel's subscribers. */
  subscriberIds: readonly number[];
  /** Unread for every subscriber but the sender; otherwise read by all. */
  unread: boolean;
}

const MESSAGE_COLUMNS = [
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
];

/** Messages, their per-user flags and their search index through bulk inserts, in one transaction. */
export async function insertMessages(app: App, batch: readonly BulkMessage[]): Promise<void> {
  const messages: Knex.Value[][] = [];
  const flags: Knex.Value[][] = [];
  const docs: SearchDocument[] = [];
  for (const m of batch) {
    messages.push([
      m.id,
      m.realmId,
      m.senderId,
      m.recipientId,
      m.channelId,
      m.topic,
      m.topic,
      m.content,
      `<p>${m.content}</p>`,
      m.dateSent,
      "bench",
    ]);
    for (const userId of m.subscriberIds)
      flags.push([userId, m.id, m.unread && userId !== m.senderId ? 0 : MESSAGE_FLAG_BITS.read]);
    docs.push({ id: m.id, topic: m.topic, text: m.content });
  }
  await app.knex.transaction(async (trx) => {
    await bulkInsert(trx, "messages", MESSAGE_COLUMNS, messages, 400);
    await bulkInsert(trx, "user_messages", ["user_id", "message_id", "flags"], flags, 300);
    await indexMessages(trx, docs);
  });
  // The messages took explicit IDs: PostgreSQL's sequence must continue after them.
  if (isPostgres(app.knex)) {
    await app.knex.raw(
      "SELECT setval(pg_get_serial_sequence('messages', 'id'), (SELECT max(id) FROM messages))",
    );
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
export function random(seed: number): () => number {
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
    channels.push({ id: await createBenchChannel(app, owner, name, subscribers), name, subscribers });
  }
  const recipients = await channelRecipients(app);
  const next = random(42);
  const firstId = await nextMessageId(app);
  const start = Math.floor(Date.now() / 1000) - options.messages;
  const BATCH = 5000;
  for (let offset = 0; offset < options.messages; offset += BATCH) {
    const batch: BulkMessage[] = [];
    for (let n = offset; n < Math.min(offset + BATCH, options.messages); n++) {
      const channel = channels[n % channels.length]!;
      const topic = `topic ${Math.floor(next() * TOPICS_PER_CHANNEL)}`;
      const words = Array.from(
        { length: 8 + Math.floor(next() * 12) },
        () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]!,
      );
      if (next() < 0.01) words.splice(3, 0, SEARCH_WORD);
      batch.push({
        id: firstId + n,
        realmId,
        senderId: channel.subscribers[Math.floor(next() * channel.subscribers.length)]!,
        channelId: channel.id,
        recipientId: recipients.get(channel.id)!,
        topic,
        content: words.join(" "),
        dateSent: start + n,
        subscriberIds: channel.subscribers,
        unread: n >= options.messages - 50 * channels.length,
      });
    }
    await insertMessages(app, batch);
  }
  return { channels, messages: options.messages };
}
