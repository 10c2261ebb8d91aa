import { parseRateLimitRules, type Config } from "../config.js";
import { createKnex, createReadPool } from "../db/knex.js";
import { migrateLatest } from "../db/migrate.js";
import { Db, type BusyRetry } from "../db/tx.js";
import { GroupCommit } from "../db/group-commit.js";
import { doSendMessages } from "../actions/message-write.js";
import { deliverDueScheduledMessages } from "../actions/scheduled-delivery.js";
import {
  deliverDueWebhooks,
  isPlainWebhookResult,
  WEBHOOK_RESULT_WINDOW_MS,
  webhookDeliveriesIdle,
  writeWebhookResult,
} from "../actions/outgoing-webhooks.js";
import { sweepUploads } from "../actions/uploads.js";
import { EventHub } from "../events/hub.js";
import type { EventRecipients } from "../events/types.js";
import { drainOutbox } from "../events/outbox.js";
import { loadSavedQueues, saveQueues } from "../events/persistence.js";
import { watchExternalChanges } from "../db/change-watch.js";
import { ChannelCache } from "../cache/channel-cache.js";
import { PresenceStore } from "../cache/presence-store.js";
import { systemClock, type Clock } from "../clock.js";
import { RealmCache } from "../cache/realm-cache.js";
import { UserStateCache } from "../cache/user-state-cache.js";
import { SendRulesCache } from "../cache/send-rules-cache.js";
import { createLogger, type Logger } from "../logger.js";
import { BatchedWrites } from "../lib/batched-writes.js";
import { DueTimer } from "../lib/due-timer.js";
import { SCRYPT_PARAMS, type ScryptParams } from "../lib/passwords.js";
import { RateLimiter } from "../lib/rate-limiter.js";
import type { App } from "../app.js";
import { JobQueue } from "../lib/job-queue.js";
import { LocalBlobStore } from "../lib/storage/local.js";
import { uploadsDir } from "../lib/storage/paths.js";

export interface CreateAppOptions {
  clock?: Clock;
  logger?: Logger;
  /** Apply pending migrations first (serve, init); default true. */
  migrate?: boolean;
  /**
   * Write events to the outbox for the running server to publish, instead of to this
   * process's (unserved) queues: admin commands.
   */
  outbox?: boolean;
  /**
   * Tests only: cheaper scrypt parameters for new password hashes. No setting, flag or
   * environment variable leads here, so a server always hashes with SCRYPT_PARAMS.
   */
  scrypt?: ScryptParams;
  /** Start a transaction over when the write lock stayed busy (admin commands beside a server). */
  busyRetry?: BusyRetry;
}

export async function createApp(config: Config, options: CreateAppOptions = {}): Promise<App> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.log_level);
  const writer = createKnex(config);
  try {
    if (options.migrate !== false) await migrateLatest(writer);
  } catch (err) {
    await writer.destroy();
    throw err;
  }
  const knex = createReadPool(config);
  const events = new EventHub(
    {
      heartbeatMs: config.heartbeat_interval_secs * 1000,
      gcIntervalMs: config.queue_gc_interval_secs * 1000,
      maxQueueEvents: config.max_queue_events,
      maxQueuesPerUser: config.max_queues_per_user,
      maxParkedPollsPerUser: config.max_parked_polls_per_user,
      maxTotalEvents: config.max_total_queued_events,
    },
    clock,
    logger,
  );
  const userState = new UserStateCache();
  const sendRules = new SendRulesCache();
  const db = new Db(
    writer,
    {
      send(realmId, event, recipients) {
        // Recipients may be a one-shot iterator; both consumers need them.
        const userIds: EventRecipients =
          recipients instanceof Map ? recipients : [...(recipients as Iterable<number>)];
        userState.observe(realmId, event, userIds);
        sendRules.observe(realmId, event);
        events.send(realmId, event, userIds);
      },
    },
    clock,
    knex,
    options.outbox === true,
    options.busyRetry,
  );
  const app: App = {
    config,
    knex,
    db,
    events,
    realms: new RealmCache(),
    channels: new ChannelCache(clock),
    userState,
    sendRules,
    messageSends: new GroupCommit(db, async (tx, messages) => {
      const ids = await doSendMessages(app, tx, messages);
      // Finished webhook deliveries with nothing to post ride along: no commit of their own.
      await app.webhookResults.writeIn(tx, isPlainWebhookResult);
      return ids;
    }),
    presence: new PresenceStore(db, knex, logger),
    scheduledDelivery: new DueTimer(clock, logger, () => deliverDueScheduledMessages(app)),
    outgoingWebhooks: new DueTimer(clock, logger, () => deliverDueWebhooks(app)),
    webhookDeliveries: new Map(),
    webhookResults: new BatchedWrites(db, WEBHOOK_RESULT_WINDOW_MS, writeWebhookResult),
    uploads: new LocalBlobStore(uploadsDir(config)),
    jobs: new JobQueue((name, err) => logger.error(`background job ${name} failed`, err)),
    rateLimits: new RateLimiter(
      clock,
      config.rate_limiting
        ? {
            api_by_user: parseRateLimitRules(config.rate_limit_api_by_user),
            api_by_ip: parseRateLimitRules(config.rate_limit_api_by_ip),
            authenticate_by_username: parseRateLimitRules(config.rate_limit_authenticate_by_username),
          }
        : {},
    ),
    clock,
    logger,
    scrypt: options.scrypt ?? SCRYPT_PARAMS,
    onClose: [],
  };
  return app;
}

/**
 * Starts event-queue housekeeping and restores queues saved by the last shutdown; then
 * the delivery of scheduled messages (what fell due while the server was down goes now).
 */
export async function startEvents(app: App): Promise<void> {
  // Through the writer: restoring also deletes the saved queues.
  app.events.restore(await loadSavedQueues(app.db.knex));
  app.events.start();
  app.presence.start(app.config.presence_flush_interval_ms);
  app.onClose.push(() => app.presence.stop());
  // Events of admin commands run while the server was down reach the restored queues.
  await drainOutbox(app.db);
  app.scheduledDelivery.start();
  // Deliveries pending when the server stopped (or crashed) are sent now.
  app.outgoingWebhooks.start();
  app.onClose.push(startUploadSweep(app));
  app.onClose.push(
    watchExternalChanges(app.db.knex, app.config.external_change_poll_ms, () => {
      app.realms.invalidateAll();
      app.channels.invalidateAll();
      app.userState.clear();
      app.sendRules.clear();
      drainOutbox(app.db).catch((err: unknown) => app.logger.error("publishing outbox events failed", err));
    }),
  );
}

/**
 * The upload sweep (actions/uploads.ts): unclaimed files past their retention, stored
 * bytes nothing names. On a timer, off the request path; one run at a time.
 */
function startUploadSweep(app: App): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepUploads(app)
      .catch((err: unknown) => app.logger.error("upload sweep failed", err))
      .finally(() => (running = false));
  }, app.config.upload_sweep_interval_secs * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/** Saves presence and live queues (so clients survive a restart) and closes the database. */
export async function closeApp(app: App, options: { saveQueues?: boolean } = {}): Promise<void> {
  for (const stop of app.onClose.splice(0)) stop();
  // A delivery in progress finishes (its transaction commits or rolls back) first.
  await app.scheduledDelivery.stop();
  // A delivery under way finishes (each attempt is bounded by outgoing_webhook_timeout_ms).
  await app.outgoingWebhooks.stop();
  await webhookDeliveriesIdle(app);
  await app.jobs.close();
  app.events.stop();
  await app.presence.flush();
  if (app.presence.unflushed > 0)
    app.logger.error(`${app.presence.unflushed} presence change(s) were not saved`);
  if (options.saveQueues) await saveQueues(app.db.knex, app.events.snapshot(), app.clock);
  await app.knex.destroy();
  await app.db.knex.destroy();
}
