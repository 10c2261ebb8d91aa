import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeApp, createApp, startEvents } from "../../src/server/create-app.js";
import { type App } from "../../src/app.js";
import { testConfig, type Config } from "../../src/config.js";
import type { ScryptParams } from "../../src/lib/passwords.js";
import { databasePath } from "../../src/db/knex.js";
import { listen, type RunningServer } from "../../src/server/listen.js";
import { silentLogger, createLogger, type Logger } from "../../src/logger.js";
import { TestClock } from "./clock.js";
import { type Client, anonymousClient } from "./client.js";
import { Factory } from "./factories.js";
import { templateDatabase, testDbDriver } from "./setup.js";
import { databaseForServer, onPostgres, releaseDataDir } from "./postgres.js";

export const TEST_HOST = "chatd.test";

/**
 * scrypt parameters for the passwords test servers hash: about a thousand times cheaper
 * than the server's (every test realm hashes seven passwords). Hashes record their own
 * parameters, so logging in works the same.
 */
export const CHEAP_SCRYPT: ScryptParams = { N: 16, r: 1, p: 1 };

export interface TestServer {
  readonly url: string;
  readonly app: App;
  readonly clock: TestClock;
  readonly factory: Factory;
  /** A client with no credentials. */
  readonly anonymous: Client;
  /** Stops the server (as a graceful shutdown would) and removes its data directory. */
  close(): Promise<void>;
  /** Stops serving but keeps the data directory (for restart tests). */
  stop(options?: { saveQueues?: boolean }): Promise<void>;
  readonly dataDir: string;
}

/**
 * The real server on an ephemeral port over a fresh copy of the migrated template
 * database, with a hand-driven clock. Tests call it over HTTP like any client.
 */
export async function startTestServer(
  overrides: Partial<Config> = {},
  options: {
    dataDir?: string;
    keepDataDir?: boolean;
    clock?: TestClock;
    logger?: Logger;
    /** Listen on this port (a restart that clients, such as a browser, must find again); default: any free port. */
    port?: number;
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "chatd-test-"));
  const database = onPostgres() && !overrides.database_url ? await databaseForServer(dataDir) : "";
  const config = testConfig(dataDir, {
    external_url: `http://${TEST_HOST}`,
    log_level: "silent",
    heartbeat_interval_secs: 60,
    db_driver: testDbDriver(),
    // Tests of rate limits turn them on; the rest of the suite sends far more than a client would.
    rate_limiting: false,
    database_url: database,
    ...overrides,
  });
  if (!options.dataDir && !config.database_url) copyFileSync(templateDatabase(), databasePath(config));
  // A restart test may start the server later than the real time (work due meanwhile).
  const clock = options.clock ?? new TestClock();
  const logger = options.logger ?? (process.env.CHATD_TEST_LOG ? createLogger("debug") : silentLogger);
  const app = await createApp(config, { clock, logger, scrypt: CHEAP_SCRYPT });
  await startEvents(app);
  let running: RunningServer | null = await listen(app, "127.0.0.1", options.port ?? 0);
  const url = `http://127.0.0.1:${running.port}`;
  const stop = async (stopOptions: { saveQueues?: boolean } = {}) => {
    if (!running) return;
    const current = running;
    running = null;
    await current.close();
    await closeApp(app, stopOptions);
  };
  return {
    url,
    app,
    clock,
    dataDir,
    factory: new Factory(app, url),
    anonymous: anonymousClient(url),
    stop,
    async close() {
      await stop();
      if (options.keepDataDir) return;
      rmSync(dataDir, { recursive: true, force: true });
      await releaseDataDir(dataDir);
    },
  };
}
