import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import type { Db, EventLogHooks } from "../db/tx.js";
import type { PendingEvent } from "../db/outbox.js";
import {
  appendEvents,
  appendInvalidations,
  appendQueueDeletion,
  newestLogId,
  readLog,
  type Invalidation,
  type LogEntry,
} from "../db/event-log.js";
import { isPostgres } from "../db/dialect.js";
import { notifyExternalChange } from "../db/pg-change-watch.js";
import { lockTimer } from "../db/lock-timings.js";
import { acceptsMessages, type EventHub, type QueueReplica } from "./hub.js";
import type { EventQueue } from "./queue.js";
import type { QueueOptions } from "../wire/events.js";

/** Entries read per query while catching up. */
const BATCH = 500;
/** User IDs per query (SQLite's bound-parameter limit). */
const USER_CHUNK = 500;

/** What applying an entry does besides queues: caches observe events and drop entries (events/fanout.ts). */
export interface LogApplier {
  /** An entry's event, with the hub's `sendLogged` among what it does. */
  event(entry: LogEntry): void;
  /** Invalidations another process made. */
  invalidate(invalidations: readonly Invalidation[]): void;
}

interface QueueRow {
  queue_id: string;
  user_id: number;
  realm_id: number;
  options: string;
  resume_log_id: number | string;
  resume_event_id: number;
  acked_event_id: number;
  last_access: number | string;
}

/**
 * One server process among several over one database. Every process applies the event
 * log (db/event-log.ts) in order, its own commits included, so all copies of a queue get
 * the same events with the same IDs; queue registrations and resume points live in
 * `event_queues`, so any process can serve any queue, and queues outlive a crashed process.
 */
export class Replication implements EventLogHooks, QueueReplica {
  /** This process in the log's `origin` column. */
  readonly origin = `${process.pid}:${randomBytes(4).toString("hex")}`;
  /** The last log entry applied to this process's queues and caches. */
  private position = 0;
  /** Invalidations made by the hooks of the commit being finished. */
  private recording: Array<readonly [string, number]> | null = null;
  /** Queues polled here since the last flush: their acknowledgements to store. */
  private readonly dirty = new Set<EventQueue>();
  private flushing: Promise<void> = Promise.resolve();

  private db!: Db;

  constructor(
    private readonly reader: Knex,
    private readonly hub: EventHub,
    private readonly applier: LogApplier,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The Db publishes through this replication, so it is built after it. */
  attach(db: Db): void {
    this.db = db;
  }

  /** Starts after the newest entry: queues load their own history from the log. */
  async start(): Promise<void> {
    this.position = await newestLogId(this.reader);
  }

  get appliedThrough(): number {
    return this.position;
  }

  /** Cache hooks call this; only invalidations made while finishing a commit are logged. */
  noteInvalidation(cache: string, realmId: number): void {
    this.recording?.push([cache, realmId]);
  }

  private now(): number {
    return Math.floor(this.clock.nowMs() / 1000);
  }

  async afterCommit(runHooks: () => void): Promise<void> {
    const recorded: Array<readonly [string, number]> = [];
    this.recording = recorded;
    try {
      runHooks();
    } finally {
      this.recording = null;
    }
    try {
      // After the commit, not in it: a crash in between leaves the others' caches stale
      // until the cluster restarts the worker (the primary then tells them to drop all).
      if (recorded.length > 0) {
        const unique = [...new Map(recorded.map((pair) => [pair.join(":"), pair])).values()];
        await this.appendToLog((trx) => appendInvalidations(trx, unique, this.origin, this.now()));
      }
      await this.applyNew();
    } catch (err) {
      this.logger.error("applying the event log failed", err);
    }
  }

  async publish(event: PendingEvent): Promise<void> {
    try {
      await this.appendToLog((trx) => appendEvents(trx, [event], this.origin, this.now()));
      await this.applyNew();
    } catch (err) {
      this.logger.error("publishing an event through the event log failed", err);
    }
  }

  /** Applies the entries committed since the last call. Inside the write lock. */
  private async applyNew(): Promise<void> {
    for (;;) {
      const entries = await readLog(this.reader, this.position, BATCH);
      for (const entry of entries) this.apply(entry);
      if (entries.length < BATCH) return;
    }
  }

  private apply(entry: LogEntry): void {
    this.position = entry.id;
    if (entry.event) this.applier.event(entry);
    if (entry.invalidates.length > 0 && entry.origin !== this.origin) {
      this.applier.invalidate(entry.invalidates);
    }
    if (entry.deletedQueueId !== null) {
      const copy = this.hub.localQueue(entry.deletedQueueId);
      if (copy) this.hub.deleteQueue(copy);
    }
  }

  catchUp(): Promise<void> {
    return this.db.consistentRead(() => this.applyNew());
  }

  /** The change watcher's callback: another process committed. */
  noticeCommit(): void {
    this.catchUp().catch((err: unknown) => this.logger.error("applying the event log failed", err));
  }

  /** Inside the write lock: register catches up before it reads the state. */
  catchUpLocked(): Promise<void> {
    return this.applyNew();
  }

  /**
   * Inside the write lock, before register pins its read snapshot: the queue starts after
   * the last entry applied. (An entry committed by another process after that one but
   * before the snapshot was pinned, or before a cache register captured was loaded, is in
   * both: a client sees such a change twice, never not at all.)
   */
  async save(queue: EventQueue): Promise<void> {
    const resume = queue.resumePoint(this.position);
    const dropped: string[] = [];
    await this.appendToLog(async (trx) => {
      // The user's queue limit, decided here for every process: past it, the queues
      // polled longest ago go, deleted through the log like DELETE /events.
      const others = await trx("event_queues")
        .where({ user_id: queue.userId })
        .orderBy([
          { column: "last_access", order: "desc" },
          { column: "queue_id", order: "desc" },
        ])
        .pluck<string[]>("queue_id");
      for (const queueId of others.slice(Math.max(0, this.hub.maxQueuesPerUser - 1))) {
        await trx("event_queues").where({ queue_id: queueId }).delete();
        await appendQueueDeletion(trx, queue.realmId, queueId, this.origin, this.now());
        dropped.push(queueId);
      }
      await trx("event_queues").insert({
        queue_id: queue.id,
        user_id: queue.userId,
        realm_id: queue.realmId,
        options: JSON.stringify(queue.options),
        resume_log_id: resume.logId,
        resume_event_id: resume.eventId,
        acked_event_id: queue.newestPrunedId,
        last_access: this.now(),
      });
    });
    for (const queueId of dropped) {
      this.logger.info(`user ${queue.userId} has too many event queues; dropping queue ${queueId}`);
      const copy = this.hub.localQueue(queueId);
      if (copy) this.hub.deleteQueue(copy);
    }
  }

  load(queueId: string): Promise<EventQueue | null> {
    return this.db.consistentRead(async () => {
      await this.applyNew();
      const already = this.hub.localQueue(queueId);
      if (already) return already;
      const row = await this.db.knex<QueueRow>("event_queues").where({ queue_id: queueId }).first();
      if (!row) return null;
      const queue = this.hub.copyQueue(
        row.queue_id,
        row.user_id,
        row.realm_id,
        JSON.parse(row.options) as QueueOptions,
      );
      queue.nextEventId = row.resume_event_id;
      let after = Number(row.resume_log_id);
      for (;;) {
        const entries = await readLog(this.reader, after, BATCH, this.position);
        for (const entry of entries) {
          if (entry.deletedQueueId === queueId) return null;
          if (!entry.event) continue;
          if (!this.hub.replayInto(queue, entry.id, entry.realmId, entry.event, entry.recipients))
            return null;
        }
        if (entries.length < BATCH) break;
        after = entries.at(-1)!.id;
      }
      queue.restoreAcknowledged(row.acked_event_id);
      if (queue.events.length > this.hub.maxQueueEvents) {
        // The client stopped acknowledging: as the process that served it, the queue expires.
        await this.db.knex("event_queues").where({ queue_id: queueId }).delete();
        return null;
      }
      this.hub.adopt(queue);
      return queue;
    });
  }

  /** A stored queue is live until the sweep below drops it (as a queue until GC in one process). */
  async usersReceivingMessages(userIds: readonly number[]): Promise<Set<number>> {
    const live = new Set<number>();
    for (let i = 0; i < userIds.length; i += USER_CHUNK) {
      const rows = await this.reader("event_queues")
        .whereIn("user_id", userIds.slice(i, i + USER_CHUNK))
        .select<Array<{ user_id: number; options: string }>>("user_id", "options");
      for (const row of rows) {
        if (acceptsMessages(JSON.parse(row.options) as QueueOptions)) live.add(row.user_id);
      }
    }
    return live;
  }

  async remove(queue: EventQueue): Promise<void> {
    await this.appendToLog(async (trx) => {
      await trx("event_queues").where({ queue_id: queue.id }).delete();
      await appendQueueDeletion(trx, queue.realmId, queue.id, this.origin, this.now());
    });
  }

  /**
   * Writes log entries outside a change's own transaction (typing, presence, invalidations,
   * queue deletions) in a write transaction of their own: on PostgreSQL that takes the write
   * lock, so no entry commits with a lower ID after a process has read past it, and sends
   * the NOTIFY that wakes the other processes (SQLite's data_version sees any commit).
   */
  private async appendToLog(write: (trx: Knex.Transaction) => Promise<unknown>): Promise<void> {
    const timer = lockTimer();
    const asked = timer ? performance.now() : 0;
    let locked = 0;
    await this.db.knex.transaction(async (trx) => {
      if (timer) locked = performance.now();
      await write(trx);
      if (isPostgres(trx)) await notifyExternalChange(trx);
    });
    // Typing notifications and queue changes take the write lock too (db/lock-timings.ts).
    timer?.record("event_log", 1, locked - asked, performance.now() - locked);
  }

  touched(queue: EventQueue): void {
    this.dirty.add(queue);
  }

  /**
   * Stores the acknowledgements and access times of the queues polled here since the
   * last flush, one transaction for all. A crash loses at most one interval of them:
   * another process then replays a few acknowledged events, which the client's next
   * poll acknowledges again.
   */
  flush(): Promise<void> {
    if (this.dirty.size === 0) return this.flushing;
    const now = this.now();
    const updates = [...this.dirty].map((queue) => ({
      id: queue.id,
      acked: queue.newestPrunedId,
      resume: queue.resumePoint(this.position),
    }));
    this.dirty.clear();
    this.flushing = this.flushing.then(() =>
      this.db.knex
        .transaction(async (trx) => {
          for (const update of updates) {
            await trx("event_queues").where({ queue_id: update.id }).update({
              acked_event_id: update.acked,
              resume_log_id: update.resume.logId,
              resume_event_id: update.resume.eventId,
              last_access: now,
            });
          }
        })
        .catch((err: unknown) => this.logger.error("storing event queue acknowledgements failed", err)),
    );
    return this.flushing;
  }
}

/** Log entries are kept this long at least (a process catching up after a pause). */
const LOG_RETENTION_SECS = 60;

/**
 * One process's periodic work for all (the first worker): drops queues idle past their
 * timeout, and log entries every process has applied and no stored queue resumes before.
 */
export async function sweepReplication(writer: Knex, nowSecs: number): Promise<void> {
  const stale = await writer("event_queues")
    .where("last_access", "<", nowSecs - 60)
    .select<Array<{ queue_id: string; options: string; last_access: number | string }>>(
      "queue_id",
      "options",
      "last_access",
    );
  const expired = stale
    .filter((row) => {
      const { idleTimeoutSecs } = JSON.parse(row.options) as QueueOptions;
      return Number(row.last_access) + idleTimeoutSecs < nowSecs;
    })
    .map((row) => row.queue_id);
  if (expired.length > 0) await writer("event_queues").whereIn("queue_id", expired).delete();
  const oldest = await writer("event_queues")
    .min<{ id: number | string | null }>("resume_log_id as id")
    .first();
  let prune = writer("event_log").where("created_at", "<", nowSecs - LOG_RETENTION_SECS);
  if (oldest?.id !== null && oldest?.id !== undefined) prune = prune.andWhere("id", "<=", Number(oldest.id));
  await prune.delete();
}
