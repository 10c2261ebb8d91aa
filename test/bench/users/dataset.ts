// The users-per-core data set: teams of BLOCK users, each team with its own channels of 20-200
// subscribers (about SUBSCRIPTIONS_PER_USER each), grown a team at a time as the benchmark
// asks for more users, so a step with n users (a multiple of BLOCK) uses whole teams only.
// Users, group memberships and API keys go in with bulk inserts copied from one member made by
// the real action (the action presents every user to every other: quadratic at 10,000);
// channels through the real action; a short history per channel through bulk inserts.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Knex } from "knex";
import { type App } from "../../../src/app.js";
import { closeApp, createApp } from "../../../src/server/create-app.js";
import { checkInitRealm } from "../../../src/actions/init.js";
import { doIssueApiKey } from "../../../src/actions/api-keys.js";
import { doCreateUser } from "../../../src/actions/users.js";
import { checkCreateChannel } from "../../../src/actions/channel-create.js";
import { RECIPIENT_TYPE } from "../../../src/db/channel-rows.js";
import { bulkInsert } from "../../../src/db/insert.js";
import type { UserRow } from "../../../src/db/rows.js";
import { indexMessages, type SearchDocument } from "../../../src/db/search-sqlite.js";
import { generateApiKey, hashApiKey } from "../../../src/lib/api-keys.js";
import { MESSAGE_FLAG_BITS } from "../../../src/lib/message-flags.js";
import { loadConfig } from "../../../src/config.js";
import { silentLogger } from "../../../src/logger.js";
import type { BenchUser } from "../dataset.js";

/** Users per team; user counts of the benchmark's steps are multiples of it. */
export const BLOCK = 500;
const SUBSCRIPTIONS_PER_USER = 5;
const MIN_CHANNEL = 20;
const MAX_CHANNEL = 200;
/** History per channel, of which the newest UNREAD_PER_CHANNEL are unread for everyone. */
const HISTORY_PER_CHANNEL = 100;
const UNREAD_PER_CHANNEL = 10;

export interface UsersChannel {
  id: number;
  name: string;
  /** Indexes into UsersDataset.users. */
  members: number[];
}

export interface UsersDataset {
  users: BenchUser[];
  channels: UsersChannel[];
}

const MANIFEST = "bench-users.json";

/** A small deterministic PRNG (mulberry32): every run builds the same teams. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Channel memberships of one team (indexes first..first+BLOCK-1). */
function teamChannels(first: number): number[][] {
  const next = random(1000 + first);
  const channels: number[][] = [];
  let subscriptions = 0;
  while (subscriptions < BLOCK * SUBSCRIPTIONS_PER_USER) {
    const size = MIN_CHANNEL + Math.floor(next() * (MAX_CHANNEL - MIN_CHANNEL + 1));
    const picked = new Set<number>();
    while (picked.size < size) picked.add(first + Math.floor(next() * BLOCK));
    channels.push([...picked].sort((a, b) => a - b));
    subscriptions += size;
  }
  return channels;
}

/** Opens (or creates) the data set in dataDir and grows it to at least `users` users. */
export async function growUsersDataset(options: {
  dataDir: string;
  driver: "sqlite3" | "better-sqlite3";
  users: number;
}): Promise<UsersDataset> {
  mkdirSync(options.dataDir, { recursive: true });
  const manifestPath = join(options.dataDir, MANIFEST);
  const dataset: UsersDataset = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, "utf8")) as UsersDataset)
    : { users: [], channels: [] };
  if (dataset.users.length >= options.users) return dataset;
  const config = loadConfig({
    dataDir: options.dataDir,
    env: {},
    overrides: { db_driver: options.driver, log_level: "silent" },
  });
  const app = await createApp(config, { logger: silentLogger });
  try {
    if (dataset.users.length === 0) {
      const owner = await checkInitRealm(app, {
        realmName: "Bench",
        ownerEmail: "user0@bench.test",
        ownerName: "User 0",
        ownerPassword: "bench-password",
      });
      dataset.users.push({ id: owner.user_id, email: owner.email, apiKey: owner.api_key });
    }
    const realmId = (await app.realms.primaryRealm(app.knex))!.realm.id;
    if (dataset.users.length === 1) {
      // The template every bulk-made user copies.
      dataset.users.push(
        await app.db.transaction(async (tx) => {
          const user = await doCreateUser(app, tx, {
            realmId,
            email: "user1@bench.test",
            fullName: "User 1",
          });
          return { id: user.id, email: user.email, apiKey: await doIssueApiKey(app, tx, user.id, "bench") };
        }),
      );
    }
    while (dataset.users.length < options.users) {
      const first = dataset.users.length;
      const count = BLOCK - (first % BLOCK);
      dataset.users.push(...(await bulkUsers(app, dataset.users[1]!.id, first, count)));
      if (dataset.users.length % BLOCK === 0) {
        const teamStart = dataset.users.length - BLOCK;
        await addTeamChannels(app, realmId, dataset, teamStart);
      }
    }
    writeFileSync(manifestPath, JSON.stringify(dataset));
    return dataset;
  } finally {
    await closeApp(app);
  }
}

/**
 * Drops the queues a stopped server saved on its way out (it restores them on start): each step
 * starts with only its own users' queues.
 */
export async function forgetSavedQueues(
  dataDir: string,
  driver: "sqlite3" | "better-sqlite3",
): Promise<void> {
  const config = loadConfig({ dataDir, env: {}, overrides: { db_driver: driver, log_level: "silent" } });
  const app = await createApp(config, { logger: silentLogger });
  try {
    await app.knex("event_queue_snapshots").delete();
  } finally {
    await closeApp(app);
  }
}

/** Users first..first+count-1, copies of the template user with their own name and key. */
async function bulkUsers(app: App, templateId: number, first: number, count: number): Promise<BenchUser[]> {
  const template = await app.knex("users").where({ id: templateId }).first<UserRow>();
  if (template.email !== template.delivery_email) throw new Error("bench users need public emails");
  const columns = Object.keys(template).filter((c) => c !== "id");
  const groupIds = (
    await app
      .knex("user_group_members")
      .where({ user_id: templateId })
      .select<Array<{ group_id: number }>>("group_id")
  ).map((g) => g.group_id);
  const keyRow = await app
    .knex("api_keys")
    .where({ user_id: templateId })
    .first<{ date_created: Knex.Value }>();
  const made: BenchUser[] = [];
  await app.knex.transaction(async (trx) => {
    const rows: Knex.Value[][] = [];
    for (let i = first; i < first + count; i++) {
      const email = `user${i}@bench.test`;
      const row: Record<string, unknown> = {
        ...template,
        email,
        delivery_email: email,
        full_name: `User ${i}`,
      };
      rows.push(columns.map((c) => row[c] as Knex.Value));
    }
    await bulkInsert(trx, "users", columns, rows, Math.floor(900 / columns.length));
    const ids = await trx("users")
      .whereIn(
        "email",
        rows.map((_, k) => `user${first + k}@bench.test`),
      )
      .select<Array<{ id: number; email: string }>>("id", "email");
    const idByEmail = new Map(ids.map((r) => [r.email, r.id]));
    const members: Knex.Value[][] = [];
    const keys: Knex.Value[][] = [];
    for (let i = first; i < first + count; i++) {
      const email = `user${i}@bench.test`;
      const id = idByEmail.get(email)!;
      const apiKey = generateApiKey();
      for (const groupId of groupIds) members.push([groupId, id]);
      keys.push([id, hashApiKey(apiKey), "bench", keyRow.date_created]);
      made.push({ id, email, apiKey });
    }
    await bulkInsert(trx, "user_group_members", ["group_id", "user_id"], members, 400);
    await bulkInsert(trx, "api_keys", ["user_id", "key_hash", "label", "date_created"], keys, 200);
  });
  return made;
}

/** The team's channels through the real action, then their history through bulk inserts. */
async function addTeamChannels(app: App, realmId: number, dataset: UsersDataset, teamStart: number) {
  const owner = await app.knex("users").where({ id: dataset.users[0]!.id }).first<UserRow>();
  const creation = { invite_only: false, is_web_public: false, is_default_stream: false, groups: {} };
  const made: UsersChannel[] = [];
  for (const members of teamChannels(teamStart)) {
    const name = `team ${teamStart / BLOCK} channel ${made.length}`;
    const subscribers = members.map((m) => dataset.users[m]!.id);
    const id = await checkCreateChannel(app, owner, {
      name,
      description: "",
      subscribers,
      announce: false,
      creation,
    });
    made.push({ id, name, members });
  }
  dataset.channels.push(...made);
  await seedHistory(app, realmId, dataset, made);
}

async function seedHistory(app: App, realmId: number, dataset: UsersDataset, channels: UsersChannel[]) {
  const recipients = new Map(
    (
      await app
        .knex("recipients")
        .where({ type: RECIPIENT_TYPE.STREAM })
        .whereIn(
          "type_id",
          channels.map((c) => c.id),
        )
        .select<Array<{ id: number; type_id: number }>>("id", "type_id")
    ).map((r) => [r.type_id, r.id]),
  );
  const next = random(7 + channels[0]!.id);
  const firstId = ((await app.knex("messages").max<{ id: number }>("id as id").first())?.id ?? 0) + 1;
  const start = Math.floor(Date.now() / 1000) - 86_400;
  const messages: Knex.Value[][] = [];
  const flags: Knex.Value[][] = [];
  const docs: SearchDocument[] = [];
  let id = firstId;
  for (const channel of channels) {
    for (let n = 0; n < HISTORY_PER_CHANNEL; n++, id++) {
      const topic = `topic ${Math.floor(next() * 5)}`;
      const content = `history message ${n} of ${channel.name}`;
      const sender = dataset.users[channel.members[Math.floor(next() * channel.members.length)]!]!.id;
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
      const unread = n >= HISTORY_PER_CHANNEL - UNREAD_PER_CHANNEL;
      for (const member of channel.members) {
        const userId = dataset.users[member]!.id;
        flags.push([userId, id, unread && userId !== sender ? 0 : MESSAGE_FLAG_BITS.read]);
      }
      docs.push({ id, topic, text: content });
    }
  }
  await app.knex.transaction(async (trx) => {
    const columns = [
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
    await bulkInsert(trx, "messages", columns, messages, 400);
    await bulkInsert(trx, "user_messages", ["user_id", "message_id", "flags"], flags, 300);
    await indexMessages(trx, docs);
  });
}
