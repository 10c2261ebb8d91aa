import { parseRateLimitRules, type Config } from "../config.js";
import { createKnex, createReadPool } from "../db/knex.js";
import { migrateLatest } from "../db/migrate.js";
import { Db, type BusyRetry } from "../db/tx.js";
import { messageSendCommits } from "../actions/message-write.js";
import { deliverDueScheduledMessages } from "../actions/scheduled-delivery.js";
import {
  deliverDueWebhooks,
  WEBHOOK_RESULT_WINDOW_MS,
  webhookDeliveriesIdle,
  writeWebhookResult,
} from "../actions/outgoing-webhooks.js";
import { sendDueMissedMessageEmails } from "../actions/missed-message-emails.js";
import { deliverDueEmails } from "../actions/email-delivery.js";
import { runDueRealmExports } from "../actions/realm-export.js";
import { sweepUploads } from "../actions/uploads.js";
import { doDeleteExpiredSessions } from "../actions/sessions.js";
import { ensureAllSystemBots } from "../actions/system-bots.js";
import { EventHub } from "../events/hub.js";
import { EventFanout } from "../events/fanout.js";
import { drainOutbox, drainOutboxIfAny } from "../events/outbox.js";
import { Replication, sweepReplication } from "../events/replication.js";
import { clearUnreadLog } from "../db/event-log.js";
import { releaseAllClaims } from "../db/claims.js";
import { loadSavedQueues, saveQueues } from "../events/persistence.js";
import { watchExternalChanges } from "../db/change-watch.js";
import { ChannelCache } from "../cache/channel-cache.js";
import { dropAllCaches } from "../cache/invalidations.js";
import { PresenceStore } from "../cache/presence-store.js";
import { systemClock, type Clock } from "../clock.js";
import { RealmCache } from "../cache/realm-cache.js";
import { SessionCache } from "../cache/session-cache.js";
import { UserStateCache } from "../cache/user-state-cache.js";
import { SendRulesCache } from "../cache/send-rules-cache.js";
import { createLogger, type Logger } from "../logger.js";
import { BatchedWrites } from "../lib/batched-writes.js";
import { DueTimer } from "../lib/due-timer.js";
import { SCRYPT_PARAMS, passwordHashPool, type ScryptParams } from "../lib/passwords.js";
import { RateLimiter } from "../lib/rate-limiter.js";
import type { App } from "../app.js";
import { JobQueue } from "../lib/job-queue.js";
import { LocalBlobStore } from "../lib/storage/local.js";
import { uploadsDir } from "../lib/storage/paths.js";
import { AllowedPrivateHosts } from "../lib/webhook-targets.js";
import { clientIpResolver } from "../http/client-ip.js";

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
  /**
   * One of several server processes (`serve --workers N`): events go through the event
   * log; worker 0 also does the work done once for all (timers, sweeps, the outbox).
   */
  worker?: { index: number };
}

/** Several processes: each app's replication (events/replication.ts). */
const replications = new WeakMap<App, { replication: Replication; index: number }>();

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
  const realms = new RealmCache();
  const sessions = new SessionCache((sessionId, at) =>
    db
      .transaction((tx) => tx.knex("sessions").where({ id: sessionId }).update({ last_active_at: at }))
      .then(
        () => undefined,
        (err: unknown) => logger.error("recording a session's activity failed", err),
      ),
  );
  const channels = new ChannelCache(clock);
  // Committed events reach the caches and queues through it: from the Db directly, or
  // (several processes) from the event log.
  const fanout = new EventFanout(events, { realms, sessions, channels, userState, sendRules });
  const replication = options.worker ? new Replication(knex, events, fanout, clock, logger) : null;
  if (replication) {
    events.replicate(replication);
    realms.onInvalidate = (cache, realmId) => replication.noteInvalidation(cache, realmId);
    channels.onInvalidate = (cache, realmId) => replication.noteInvalidation(cache, realmId);
    sessions.onInvalidate = () => replication.noteInvalidation("sessions", 0);
  }
  sessions.onEnded = (sessionIds) => events.endSessionQueues(sessionIds);
  const db: Db = new Db(writer, fanout, clock, knex, options.outbox === true, options.busyRetry, replication);
  replication?.attach(db);
  const app: App = {
    config,
    knex,
    db,
    events,
    realms,
    sessions,
    channels,
    userState,
    sendRules,
    messageSends: messageSendCommits(db, () => app),
    // Shared with other processes: each reads what the others flushed (cache/presence-store.ts).
    presence: new PresenceStore(db, knex, logger, { clock, shared: replication !== null }),
    scheduledDelivery: new DueTimer(clock, logger, () => deliverDueScheduledMessages(app)),
    outgoingWebhooks: new DueTimer(clock, logger, () => deliverDueWebhooks(app)),
    missedMessageEmails: new DueTimer(clock, logger, () => sendDueMissedMessageEmails(app)),
    emailDelivery: new DueTimer(clock, logger, () => deliverDueEmails(app)),
    realmExports: new DueTimer(clock, logger, () => runDueRealmExports(app)),
    webhookAllowedHosts: AllowedPrivateHosts.fromSetting(config.webhook_allowed_private_hosts),
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
    clientIp: clientIpResolver(config.trusted_proxies),
    scrypt: options.scrypt ?? SCRYPT_PARAMS,
    onClose: [],
  };
  if (replication) replications.set(app, { replication, index: options.worker!.index });
  return app;
}

/**
 * Starts event-queue housekeeping and restores queues saved by the last shutdown; then
 * the delivery of scheduled messages (what fell due while the server was down goes now).
 */
export async function startEvents(app: App): Promise<void> {
  const worker = replications.get(app);
  if (worker) return startWorkerEvents(app, worker.replication, worker.index === 0);
  // This process alone holds the data directory: a claim left in it is a crashed run's.
  await app.db.transaction((tx) => releaseAllClaims(tx.knex));
  await app.db.transaction((tx) => ensureAllSystemBots(app, tx));
  // Through the writer: restoring also deletes the saved queues.
  app.events.restore(await loadSavedQueues(app.db.knex));
  app.events.start();
  app.presence.start(app.config.presence_flush_interval_ms);
  app.onClose.push(() => app.presence.stop());
  // Armed before the first drain: an admin command's commit is seen by the one or the other.
  app.onClose.push(
    await watchExternalChanges(app.db.knex, app.config.external_change_poll_ms, () => {
      dropAllCaches(app);
      // An admin command's messages may have queued missed-message notifications.
      app.missedMessageEmails.noteDue(app.clock.nowMs() / 1000);
      // An admin command may have queued email (`chatd user reset-password`).
      app.emailDelivery.noteDue(app.clock.nowMs() / 1000);
      drainOutbox(app.db).catch((err: unknown) => app.logger.error("publishing outbox events failed", err));
      // The command's invalidations, just applied, would otherwise pile up until a restart.
      clearUnreadLog(app.db.knex).catch((err: unknown) =>
        app.logger.error("clearing the event log failed", err),
      );
    }),
  );
  // Nobody tails the event log of several processes: what admin commands left there goes.
  await clearUnreadLog(app.db.knex);
  // Events of admin commands run while the server was down reach the restored queues.
  await drainOutbox(app.db);
  await startInTurn([
    app.scheduledDelivery,
    // Deliveries pending when the server stopped (or crashed) are sent now.
    app.outgoingWebhooks,
    // Missed-message batches that fell due while the server was down go out now.
    app.missedMessageEmails,
    // Email queued while the server was down (or by an admin command) goes now.
    app.emailDelivery,
    app.realmExports,
  ]);
  app.onClose.push(startUploadSweep(app));
  app.onClose.push(startSessionSweep(app));
  app.onClose.push(startFullMemberPromotion(app));
}

/** How long a timer's first run (a backlog to work through) holds back the next timer's start. */
const START_IN_TURN_MAX_WAIT_MS = 100;

/**
 * Starts the due timers one after another: with nothing due, each first run is a query or
 * two. Started at once, they took a read connection each, which the idle server then kept
 * (1.5 MB of RSS, measured); a long first run holds the next back briefly only.
 */
async function startInTurn(timers: readonly DueTimer[]): Promise<void> {
  for (const timer of timers) {
    timer.start();
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      timer.idle(),
      new Promise<void>((resolve) => (waited = setTimeout(resolve, START_IN_TURN_MAX_WAIT_MS))),
    ]);
    clearTimeout(waited);
  }
}

/** How often the first worker looks for due scheduled messages and webhooks others queued. */
const DUE_POLL_MS = 1000;
/** How often each worker stores its queues' acknowledgements. */
const ACK_FLUSH_MS = 200;
/** How often the first worker drops expired queues and applied log entries. */
const REPLICATION_SWEEP_MS = 10_000;

/**
 * A worker among several: queues are loaded on demand from the store and kept in step by
 * the event log, which the data_version watch (LISTEN/NOTIFY on PostgreSQL) tells it to read.
 * Work done once for all runs on worker 0 only; the cluster restarts a worker that dies.
 */
async function startWorkerEvents(app: App, replication: Replication, first: boolean): Promise<void> {
  await replication.start();
  app.events.start();
  app.presence.start(app.config.presence_flush_interval_ms);
  app.onClose.push(() => app.presence.stop());
  const every = (ms: number, fn: () => Promise<unknown>, what: string) => {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      fn()
        .catch((err: unknown) => app.logger.error(`${what} failed`, err))
        .finally(() => (running = false));
    }, ms);
    timer.unref();
    app.onClose.push(() => clearInterval(timer));
  };
  every(ACK_FLUSH_MS, () => replication.flush(), "storing event queue acknowledgements");
  const drain = () =>
    drainOutboxIfAny(app.db, app.knex).catch((err: unknown) =>
      app.logger.error("publishing outbox events failed", err),
    );
  // Armed before the first drain, as for one process alone.
  app.onClose.push(
    await watchExternalChanges(app.db.knex, app.config.worker_event_poll_ms, () => {
      replication.noticeCommit();
      if (first) void drain();
    }),
  );
  if (first) {
    await app.db.transaction((tx) => ensureAllSystemBots(app, tx));
    await drain();
    app.scheduledDelivery.start();
    app.outgoingWebhooks.start();
    app.missedMessageEmails.start();
    app.emailDelivery.start();
    app.realmExports.start();
    app.onClose.push(startUploadSweep(app));
    app.onClose.push(startSessionSweep(app));
    app.onClose.push(startFullMemberPromotion(app));
    // Other workers' commits queue work too; their hints to their own timers go nowhere.
    every(
      DUE_POLL_MS,
      () => {
        const now = app.clock.nowMs() / 1000;
        app.scheduledDelivery.noteDue(now);
        app.outgoingWebhooks.noteDue(now);
        app.missedMessageEmails.noteDue(now);
        app.emailDelivery.noteDue(now);
        app.realmExports.noteDue(now);
        return Promise.resolve();
      },
      "waking the due timers",
    );
    every(
      REPLICATION_SWEEP_MS,
      () => sweepReplication(app.db.knex, Math.floor(app.clock.nowMs() / 1000)),
      "sweeping event queues and the event log",
    );
  }
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

/** How often expired web sessions' rows are deleted. */
const SESSION_SWEEP_MS = 3600_000;

/**
 * Deletes the rows of web sessions past their lifetimes (actions/sessions.ts): they are
 * refused anyway; this keeps the table to the sessions that may still be used. On the
 * app's clock (tests move it), one run at a time; the next run is set before this one
 * starts, as an interval would.
 */
function startSessionSweep(app: App): () => void {
  let running = false;
  let cancel = () => {};
  const run = () => {
    cancel = app.clock.setTimer(run, SESSION_SWEEP_MS);
    if (running) return;
    running = true;
    app.db
      .transaction((tx) => doDeleteExpiredSessions(app, tx))
      .catch((err: unknown) => app.logger.error("deleting expired sessions failed", err))
      .finally(() => (running = false));
  };
  cancel = app.clock.setTimer(run, SESSION_SWEEP_MS);
  return () => cancel();
}

/** How often members past the waiting period are promoted (Zulip: daily). */
const FULL_MEMBER_PROMOTION_MS = 3600_000;

/**
 * Members whose waiting period (waiting_period_threshold) has run out join
 * role:fullmembers (actions/full-members.ts). On the app's clock, one run at a time.
 */
function startFullMemberPromotion(app: App): () => void {
  let running = false;
  let cancel = () => {};
  const run = () => {
    cancel = app.clock.setTimer(run, FULL_MEMBER_PROMOTION_MS);
    if (running) return;
    running = true;
    // Loaded on first use, as the endpoints are (most servers have no waiting period).
    import("../actions/full-members.js")
      .then(({ doPromoteNewFullMembers }) => app.db.transaction((tx) => doPromoteNewFullMembers(app, tx)))
      .catch((err: unknown) => app.logger.error("promoting new full members failed", err))
      .finally(() => (running = false));
  };
  cancel = app.clock.setTimer(run, FULL_MEMBER_PROMOTION_MS);
  return () => cancel();
}

/**
 * Saves presence and live queues (so clients survive a restart) and closes the database.
 * `waitUntil` (epoch ms, a stopping server's budget): background work still running then
 * (a delivery, a thumbnail of a huge image) is abandoned; it can no longer commit.
 */
export async function closeApp(
  app: App,
  options: { saveQueues?: boolean; waitUntil?: number } = {},
): Promise<void> {
  for (const stop of app.onClose.splice(0)) stop();
  // Work under way finishes, all at once: a scheduled delivery (its transaction commits or
  // rolls back), webhook deliveries (each attempt bounded by outgoing_webhook_timeout_ms),
  // the running background job (jobs not started are dropped).
  const background = Promise.all([
    app.scheduledDelivery.stop(),
    app.outgoingWebhooks.stop().then(() => webhookDeliveriesIdle(app)),
    app.missedMessageEmails.stop(),
    app.emailDelivery.stop(),
    app.realmExports.stop(),
    app.jobs.close(),
  ]);
  if (!(await settledBy(background, options.waitUntil))) {
    app.logger.warn("shutdown: background work still running (deliveries, thumbnails) is abandoned");
  }
  app.events.stop();
  await app.presence.flush();
  if (app.presence.unflushed > 0)
    app.logger.error(`${app.presence.unflushed} presence change(s) were not saved`);
  // What commits from here on would be missing from the saved queues: nothing does.
  await app.db.closeWrites();
  // Several processes: queues live in the store; their latest acknowledgements go there.
  const worker = replications.get(app);
  if (worker) await worker.replication.flush();
  else if (options.saveQueues) await saveQueues(app.db.knex, app.events.snapshot(), app.clock);
  await app.knex.destroy();
  await app.db.knex.destroy();
  // No password-hashing process outlives the server.
  await passwordHashPool.stop();
}

/** Whether `work` settled by `until` (epoch ms; undefined: waits as long as it takes). */
async function settledBy(work: Promise<unknown>, until: number | undefined): Promise<boolean> {
  if (until === undefined) {
    await work;
    return true;
  }
  const done = work.then(() => true);
  // Failing after the deadline, it has no one left to tell.
  done.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    done,
    new Promise<boolean>(
      (resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, until - Date.now()))),
    ),
  ]);
  clearTimeout(timer);
  return settled;
}
