// Builds the benchmark data set in a data directory, before the server starts: a realm
import { mkdirSync } from "node:fs";
// with 200 users (through the real actions), and (see seedMessages) channels,
// subscriptions and messages through a bulk path.
import { closeApp, createApp, type App } from "../../src/app-context.js";
import { checkInitRealm } from "../../src/actions/init.js";
import { doIssueApiKey } from "../../src/actions/api-keys.js";
import { doCreateUser } from "../../src/actions/users.js";
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
}

export async function buildDataset(options: DatasetOptions): Promise<Dataset> {
  mkdirSync(options.dataDir, { recursive: true });
  const config = loadConfig({
    dataDir: options.dataDir,
    env: {},
    overrides: { db_driver: options.driver, log_level: "silent" },
  });
  const app = await createApp(config, { logger: silentLogger });
  try {
    const owner = await checkInitRealm(app, {
      realmName: "Bench",
      ownerEmail: "user0@bench.test",
      ownerName: "User 0",
      ownerPassword: "bench-password",
    });
    const realmId = (await app.cache.primaryRealm(app.knex))!.realm.id;
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
    const seeded = await seedMessages(app, realmId, users, options);
    return { dataDir: options.dataDir, users, ...seeded };
  } finally {
    await closeApp(app);
  }
}

/** Channels, subscriptions and messages: filled in once the messages pipeline exists. */
function seedMessages(
  _app: App,
  _realmId: number,
  _users: BenchUser[],
  _options: DatasetOptions,
): Promise<Pick<Dataset, "channels" | "messages">> {
  return Promise.resolve({ channels: [], messages: 0 });
}
