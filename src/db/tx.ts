import type { Knex } from "knex";
import type { Clock } from "../clock.js";
import { isBusyError } from "../logger.js";
import { Mutex, Semaphore } from "./mutex.js";
import type { ChatEvent, EventRecipients } from "../wire/events.js";
import { writeOutbox, type PendingEvent } from "./outbox.js";
import { isPostgres } from "./dialect.js";
import { notifyExternalChange } from "./pg-change-watch.js";
import { appendEvents, appendInvalidations } from "./event-log.js";
import { lockTimer } from "./lock-timings.js";

/** Where committed events go (the event hub), kept abstract to avoid an import cycle. */
export interface EventSink {
  send(realmId: number, event: ChatEvent, recipients: EventRecipients): void;
}

/** A write transaction. Actions receive one and never open their own. */
export interface Tx {
  readonly knex: Knex.Transaction;
  /** UNIX seconds when the transaction started. */
  readonly now: number;
  /** Queues an event, published only if and after the transaction commits. */
  sendEventOnCommit(realmId: number, event: ChatEvent, recipients: EventRecipients): void;
  /** Runs after commit, before events are published (cache invalidation). */
  afterCommit(fn: () => void): void;
}

/**
 * Several server processes (`serve --workers N`): a transaction writes its events to the
 * event log (db/event-log.ts) instead of publishing them, and every process, this one
 * included, publishes them from the log in commit order (events/replication.ts).
 */
export interface EventLogHooks {
  /** This process in the log's `origin` column. */
  readonly origin: string;
  /** Inside the write lock, after a commit: runs its hooks, then applies the log's new entries. Never rejects. */
  afterCommit(runHooks: () => void): Promise<void>;
  /** Inside the write lock: logs and applies an ephemeral event. Never rejects. */
  publish(event: PendingEvent): Promise<void>;
}

export interface BusyRetry {
  retries: number;
  /** Told before each retry (the first retry is attempt 1). */
  onRetry?: (attempt: number) => void;
}

/**
 * The database handle. Write transactions run one at a time (SQLite has one writer),
 * and a transaction's events are published before the next one starts, so readers that
 * take the same lock (see `consistentRead`) see a state and event stream that line up.
 */
export class Db {
  private readonly writeLock = new Mutex();

  /** `knex` is the write connection; `reader` the read pool (the same in one-connection setups). */
  constructor(
    readonly knex: Knex,
    private readonly sink: EventSink,
    private readonly clock: Clock,
    private readonly reader: Knex = knex,
    /** Write events to the outbox instead of publishing them (admin commands). */
    private readonly outbox = false,
    /** How often a transaction that could not get the write lock in time starts over. */
    private readonly busyRetry: BusyRetry = { retries: 0 },
    /** Publish through the event log (several server processes); null: directly. */
    private readonly log: EventLogHooks | null = null,
  ) {
    this.earlySnapshots = earlySlots(reader);
  }

  /** Read transactions that may hold a reader connection while waiting for the write lock. */
  private readonly earlySnapshots: Semaphore | null;

  private writesClosed = false;

  /** `label` names the transaction in lock timings (lock-timings.ts; else its events' type). */
  transaction<T>(fn: (tx: Tx) => Promise<T>, label?: string): Promise<T> {
    let began = false;
    // Only a transaction that never began (BEGIN IMMEDIATE timed out) is safe to repeat.
    return this.write(
      () => {
        began = false;
        return this.attempt(() => (began = true), fn, label);
      },
      () => !began,
    );
  }

  /**
   * Runs `once` under the write lock unless writes are closed, again while it fails with
   * the database busy and `repeatable()` says it wrote nothing, up to busyRetry.retries.
   */
  private write<T>(once: () => Promise<T>, repeatable: () => boolean): Promise<T> {
    return this.writeLock.run(async () => {
      if (this.writesClosed) throw new Error("the server is stopping: no more writes");
      for (let attempt = 1; ; attempt++) {
        try {
          return await once();
        } catch (err) {
          if (!repeatable() || !isBusyError(err) || attempt > this.busyRetry.retries) throw err;
          this.busyRetry.onRetry?.(attempt);
        }
      }
    });
  }

  private async attempt<T>(began: () => void, fn: (tx: Tx) => Promise<T>, label?: string): Promise<T> {
    const now = Math.floor(this.clock.nowMs() / 1000);
    const timer = lockTimer();
    const asked = timer ? performance.now() : 0;
    let locked = 0;
    const { events, hooks, txOver } = pendingWrite(now);
    const result = await this.knex.transaction(async (trx) => {
      // Knex calls this even when BEGIN failed (the transaction has already failed with
      // BEGIN's error, which the caller gets): do nothing then.
      if (trx.isCompleted()) throw new Error("the transaction did not begin");
      began();
      if (timer) locked = performance.now();
      const value = await fn(txOver(trx));
      if (this.outbox && events.length > 0) await writeOutbox(trx, events, now);
      // Servers cannot tell what an admin command's hooks dropped: they drop every cache.
      if (this.outbox && hooks.length > 0) await appendInvalidations(trx, [["*"]], "command", now);
      if (this.log) await appendEvents(trx, events, this.log.origin, now);
      // Other processes notice an admin command's or a worker's commit through PRAGMA
      // data_version on SQLite; on PostgreSQL this notification, delivered at commit.
      if ((this.outbox || this.log) && isPostgres(trx)) await notifyExternalChange(trx);
      return value;
    });
    if (timer) {
      const kind = label ?? events[0]?.[1].type ?? "none";
      timer.record(kind, events.length, locked - asked, performance.now() - locked);
    }
    if (this.log) {
      await this.log.afterCommit(() => hooks.forEach((hook) => hook()));
      return result;
    }
    // An admin command's events reach the servers through its outbox, not a sink.
    this.afterWrite(hooks, this.outbox ? [] : events);
    return result;
  }

  /** What a committed write asked for: its hooks run, then its events are published. */
  private afterWrite(hooks: ReadonlyArray<() => void>, events: readonly PendingEvent[]): void {
    for (const hook of hooks) hook();
    for (const [realmId, event, recipients] of events) this.sink.send(realmId, event, recipients);
  }

  /**
   * A write that is one statement, run without BEGIN and COMMIT: SQLite runs a lone statement
   * as its own transaction, so the write lock is held for one trip through the driver instead
   * of three (marking messages read, the most frequent write: send p99 at 2,500 simulated
   * people went from 143 and 145 ms to 114 and 115). `fn` must write with exactly one
   * statement; its events are published after it, as a transaction's are after its commit.
   * Where events must be written with the change (the event log of several processes or of
   * PostgreSQL, an admin command's outbox), this is an ordinary transaction.
   */
  statement<T>(fn: (tx: Tx) => Promise<T>, label?: string): Promise<T> {
    if (this.log || this.outbox || isPostgres(this.knex)) return this.transaction(fn, label);
    // A statement that found the database busy wrote nothing: safe to repeat.
    return this.write(
      () => this.lone(fn, label),
      () => true,
    );
  }

  private async lone<T>(fn: (tx: Tx) => Promise<T>, label?: string): Promise<T> {
    const timer = lockTimer();
    const locked = timer ? performance.now() : 0;
    const { events, hooks, txOver } = pendingWrite(Math.floor(this.clock.nowMs() / 1000));
    // The query interface is the same; there is just no transaction around the statement.
    const result = await fn(txOver(this.knex as Knex.Transaction));
    timer?.record(label ?? events[0]?.[1].type ?? "none", events.length, 0, performance.now() - locked);
    this.afterWrite(hooks, events);
    return result;
  }

  /**
   * A stopping server, before it saves its event queues: the transactions already waiting
   * for the write lock commit (their events published), every later one is refused. Work
   * abandoned at the shutdown deadline (a request whose connection was cut, a background
   * job) then cannot commit after the queues were saved, stored with its events lost.
   */
  closeWrites(): Promise<void> {
    return this.writeLock.run(() => {
      this.writesClosed = true;
      return Promise.resolve();
    });
  }

  /**
   * Publishes an ephemeral event that belongs to no transaction and is never stored
   * (typing notifications). It takes no write lock: the sink is synchronous, and a
   * transaction's events are published in one synchronous run after its commit, so this
   * event lands between two transactions' events, never among them. A process that writes
   * to the outbox serves no queues, so there the event reaches nobody and is dropped.
   */
  publish(realmId: number, event: ChatEvent, recipients: EventRecipients): void {
    const log = this.log;
    // Through the log, the event reaches the queues of every process, between two commits.
    if (log) void this.writeLock.run(() => log.publish([realmId, event, recipients]));
    else if (!this.outbox) this.sink.send(realmId, event, recipients);
  }

  /**
   * Runs `fn`, synchronous in-memory work, between write transactions and consistent
   * reads: an in-memory change that publishes an event (presence) is then either in
   * /register's state or, as an event, in its queue. No database work happens here.
   */
  exclusive<T>(fn: () => T): Promise<T> {
    return this.writeLock.run(() => Promise.resolve().then(fn));
  }

  /**
   * Runs reads with no write transaction in between (the event log's replay), so no event
   * is both in what was read and in what is published next.
   */
  consistentRead<T>(fn: (knex: Knex) => Promise<T>): Promise<T> {
    return this.writeLock.run(() => fn(this.reader));
  }

  /**
   * Reads as of one moment between write transactions without holding the write lock for
   * the reads (/register: its state, then its queue's events, with no change in both or in
   * neither). Inside the lock, a short step: `capture` runs (take the in-memory sources as
   * they are, create the queue), then one read on an open read transaction pins its
   * snapshot. No commit can land between the two: the lock is held. After the lock is
   * released, `read` runs against that snapshot while commits go on. `read` must query only
   * through the transaction it is given (a second connection per register could exhaust
   * the pool); the transaction always ends, whether `capture` or `read` succeeds or throws.
   *
   * The read transaction begins (BEGIN only: neither database takes the snapshot there)
   * before the lock is awaited, so the locked step never waits for a reader connection.
   * Callers waiting for the lock then hold reader connections, and the lock holder may
   * need one (a cache load in `capture`, the event log in another transaction's hooks):
   * at most half the pool (earlySlots) begins early, so connections stay for the rest.
   * With a one-connection pool the transaction begins inside the lock, after `capture`.
   */
  async snapshotRead<P, T>(
    capture: () => Promise<P>,
    read: (trx: Knex.Transaction, captured: P) => Promise<T>,
  ): Promise<T> {
    const early = this.earlySnapshots;
    if (!early) {
      const { trx, captured } = await this.writeLock.run(async () => {
        const captured = await capture();
        const trx = await this.beginSnapshot();
        await finishSnapshotOnError(trx, () => pinSnapshot(trx));
        return { trx, captured };
      });
      return finishSnapshot(trx, () => read(trx, captured));
    }
    return early.run(async () => {
      const trx = await this.beginSnapshot();
      return finishSnapshot(trx, async () => {
        const captured = await this.writeLock.run(async () => {
          const captured = await capture();
          await pinSnapshot(trx);
          return captured;
        });
        return read(trx, captured);
      });
    });
  }

  private beginSnapshot(): Promise<Knex.Transaction> {
    const reader = this.reader;
    return reader.transaction(
      isPostgres(reader) ? { isolationLevel: "repeatable read", readOnly: true } : {},
    );
  }
}

/**
 * Half the pool (at least one slot) for early read transactions, so a storm of registers
 * leaves the other reads connections; null when the pool has one connection.
 */
function earlySlots(reader: Knex): Semaphore | null {
  const max = (reader.client as { pool?: { max?: number } }).pool?.max ?? 1;
  return max > 1 ? new Semaphore(Math.max(1, Math.floor(max / 2))) : null;
}

/**
 * Fixes a read transaction's snapshot. SQLite (WAL) takes a reader's snapshot at its first
 * read of the database, not at BEGIN, so one read of a table pins it; PostgreSQL's
 * REPEATABLE READ takes it at the first statement.
 */
async function pinSnapshot(trx: Knex.Transaction): Promise<void> {
  await trx("realms").first("id");
}

/** Ends a read transaction; nothing was written, so rolling back loses nothing. */
async function endSnapshot(trx: Knex.Transaction): Promise<void> {
  if (!trx.isCompleted()) await trx.rollback().catch(() => undefined);
}

/** Runs `fn`, then ends the read transaction. */
async function finishSnapshot<T>(trx: Knex.Transaction, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } finally {
    await endSnapshot(trx);
  }
}

/** Runs `fn`; ends the read transaction only if `fn` fails (the caller goes on with it). */
async function finishSnapshotOnError<T>(trx: Knex.Transaction, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    await endSnapshot(trx);
    throw err;
  }
}

/** A write's events and hooks, left for after its commit, and the Tx that collects them. */
function pendingWrite(now: number) {
  const events: PendingEvent[] = [];
  const hooks: Array<() => void> = [];
  const txOver = (knex: Knex.Transaction): Tx => ({
    knex,
    now,
    sendEventOnCommit: (realmId, event, recipients) => void events.push([realmId, event, recipients]),
    afterCommit: (hook) => void hooks.push(hook),
  });
  return { events, hooks, txOver };
}
