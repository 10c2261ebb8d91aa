// The users-per-core data set: teams of BLOCK users, each team with its own channels of 20-200
// subscribers (about SUBSCRIPTIONS_PER_USER each), grown a team at a time as the benchmark
// asks for more users, so a step with n users (a multiple of BLOCK) uses whole teams only.
// Users, group memberships and API keys go in with bulk inserts copied from one member made by
// the real action (the action presents every user to every other: quadratic at 10,000);
// channels through the real action; a short history per channel through bulk inserts.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Knex } from "knex";
import { type App } from "../../../src/app.js";
import { closeApp } from "../../../src/server/create-app.js";
import { bulkInsert } from "../../../src/db/insert.js";
import type { UserRow } from "../../../src/db/rows.js";
import { generateApiKey, hashApiKey } from "../../../src/lib/api-keys.js";
import {
  type BenchUser,
  type BulkMessage,
  channelRecipients,
  createBenchChannel,
  createBenchUser,
  initBenchRealm,
  insertMessages,
  nextMessageId,
  openBenchApp,
  random,
} from "../dataset.js";

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

/** Where the data set lives: the data directory (its manifest), and SQLite there or `databaseUrl`'s PostgreSQL database. */
export interface UsersStorage {
  dataDir: string;
  driver: "sqlite3" | "better-sqlite3";
  databaseUrl?: string;
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
export async function growUsersDataset(options: UsersStorage & { users: number }): Promise<UsersDataset> {
  const manifestPath = join(options.dataDir, MANIFEST);
  const dataset: UsersDataset = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, "utf8")) as UsersDataset)
    : { users: [], channels: [] };
  if (dataset.users.length >= options.users) return dataset;
  const app = await openBenchApp(options);
  try {
    let realmId: number;
    if (dataset.users.length === 0) {
      const made = await initBenchRealm(app);
      realmId = made.realmId;
      dataset.users.push(made.owner);
    } else realmId = (await app.realms.primaryRealm(app.knex))!.realm.id;
    // The template every bulk-made user copies.
    if (dataset.users.length === 1) dataset.users.push(await createBenchUser(app, realmId, 1));
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
 * starts with only its own users' queues. On PostgreSQL chatd keeps its queues in the event
 * log's store (`event_queues`, src/events/replication.ts), where they outlive the server too.
 */
export async function forgetSavedQueues(storage: UsersStorage): Promise<void> {
  const app = await openBenchApp(storage);
  try {
    await app.knex("event_queue_snapshots").delete();
    if (storage.databaseUrl) await app.knex("event_queues").delete();
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
  const made: UsersChannel[] = [];
  for (const members of teamChannels(teamStart)) {
    const name = `team ${teamStart / BLOCK} channel ${made.length}`;
    const subscribers = members.map((m) => dataset.users[m]!.id);
    made.push({ id: await createBenchChannel(app, owner, name, subscribers), name, members });
  }
  dataset.channels.push(...made);
  await seedHistory(app, realmId, dataset, made);
}

/** HISTORY_PER_CHANNEL messages in each of `channels`, the newest UNREAD_PER_CHANNEL unread. */
async function seedHistory(app: App, realmId: number, dataset: UsersDataset, channels: UsersChannel[]) {
  const recipients = await channelRecipients(
    app,
    channels.map((c) => c.id),
  );
  const next = random(7 + channels[0]!.id);
  const start = Math.floor(Date.now() / 1000) - 86_400;
  const batch: BulkMessage[] = [];
  let id = await nextMessageId(app);
  for (const channel of channels) {
    const subscriberIds = channel.members.map((m) => dataset.users[m]!.id);
    for (let n = 0; n < HISTORY_PER_CHANNEL; n++, id++) {
      const topic = `topic ${Math.floor(next() * 5)}`;
      batch.push({
        id,
        realmId,
        senderId: subscriberIds[Math.floor(next() * subscriberIds.length)]!,
        channelId: channel.id,
        recipientId: recipients.get(channel.id)!,
        topic,
        content: `history message ${n} of ${channel.name}`,
        dateSent: start + n,
        subscriberIds,
        unread: n >= HISTORY_PER_CHANNEL - UNREAD_PER_CHANNEL,
      });
    }
  }
  await insertMessages(app, batch);
}
