import type { Knex } from "knex";
import { systemClock, type Clock } from "../clock.js";
import { int, intOrNull, type UserPresenceRow } from "../db/rows.js";
import type { Db } from "../db/tx.js";
import type { PresenceTimes } from "../lib/presence.js";
import type { Logger } from "../logger.js";
import { PresenceChangeLog } from "./presence-log.js";

export interface PresenceRecord extends PresenceTimes {
  /**
   * The presence sequence number of this change (Zulip's last_update_id). Shared, a
   * change not flushed yet keeps the user's previous number (0 for a first one).
   */
  readonly lastUpdateId: number;
  /** When it was recorded (milliseconds), by whichever process recorded it. */
  readonly changedAt: number;
}

/** One realm's presence: a record per user who ever reported it, and the sequence. */
export interface RealmPresence {
  readonly records: ReadonlyMap<number, PresenceRecord>;
  /** The newest lastUpdateId handed out (0 when none). */
  readonly lastUpdateId: number;
}

interface MutableRealmPresence extends RealmPresence {
  readonly records: Map<number, PresenceRecord>;
  lastUpdateId: number;
  readonly log: PresenceChangeLog;
  /** Shared: every change flushed with an update ID up to this one has been read. */
  readThrough: number;
}

/** Rows per INSERT: 5 bound values each stays well under SQLite's variable limit. */
const FLUSH_CHUNK = 200;

/**
 * More numbers than one process alone hands out between two flushes
 * (presence_flush_interval_ms): a restart skips this many. SQLite's 64-bit integers and
 * JavaScript's 2^53 leave room for billions of restarts.
 */
const UNFLUSHED_NUMBERS = 1_000_000;

/**
 * Users' presence, the source of truth for reads. Every client pings every minute, so a
 * change is kept here and written to user_presence later with the others, in one
 * transaction per flush (every presence_flush_interval_ms, and at shutdown), instead of
 * a transaction per ping. A crash loses at most one interval of changes: "last seen"
 * times a little too old, which the next pings correct. A realm is read from the
 * database once, on first use.
 *
 * Alone, the process numbers each change as it takes it (each realm its own sequence,
 * which skips UNFLUSHED_NUMBERS when the realm is loaded).
 * Several processes (`shared`: workers, or servers on several machines) share one
 * sequence, kept in the database: a flush numbers its changes after the largest number
 * written (inside the write transaction, so numbers are taken in commit order), then
 * every process reads the rows numbered after what it last read, its own included, and
 * shows them under the same numbers. So reads show a change once it is flushed (within
 * one interval), the same on every process, and a client's last_update_id from one
 * process means the same on the others. Until then only this process's decisions (get)
 * see it. A write never replaces a row recorded later (`changed_at`), whichever process
 * flushes last.
 */
export class PresenceStore {
  private readonly realms = new Map<number, Promise<MutableRealmPresence>>();
  private readonly ready = new Map<number, MutableRealmPresence>();
  /** Changes not yet written, by user ID. */
  private dirty = new Map<number, PresenceRecord>();
  /** Shared: the changes being written, until they are read back numbered. */
  private writing: ReadonlyMap<number, PresenceRecord> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly reader: Knex,
    private readonly logger: Logger,
    private readonly options: { clock?: Clock; shared?: boolean } = {},
  ) {}

  private get clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  /** The realm's presence, loaded on first use. */
  realm(realmId: number): Promise<RealmPresence> {
    let loading = this.realms.get(realmId);
    if (!loading) {
      loading = this.load(realmId);
      this.realms.set(realmId, loading);
      loading.catch(() => this.realms.delete(realmId));
    }
    return loading;
  }

  /**
   * A user's presence, if any, as this process last recorded it (shared: also a change
   * not yet flushed). Like `set`, synchronous and only for a loaded realm (await
   * `realm()` first), so a caller reads, decides and writes with nothing between.
   */
  get(realmId: number, userId: number): PresenceRecord | undefined {
    const realm = this.loaded(realmId);
    if (this.options.shared) {
      const pending = this.dirty.get(userId) ?? this.writing?.get(userId);
      if (pending) return pending;
    }
    return realm.records.get(userId);
  }

  /**
   * The users whose presence changed after update `updateId` (repeats possible), or
   * null when that is too long ago to tell.
   */
  changedSince(realmId: number, updateId: number): readonly number[] | null {
    const realm = this.loaded(realmId);
    return realm.log.since(updateId, realm.lastUpdateId);
  }

  /**
   * Records a user's new presence: alone, under the realm's next sequence number;
   * shared, numbered by the flush that writes it.
   */
  set(realmId: number, userId: number, times: PresenceTimes): PresenceRecord {
    const now = this.clock.nowMs();
    let record: PresenceRecord;
    if (this.options.shared) {
      const lastUpdateId = this.loaded(realmId).records.get(userId)?.lastUpdateId ?? 0;
      record = { ...times, lastUpdateId, changedAt: now };
    } else {
      record = this.record(realmId, userId, times, now, this.loaded(realmId).lastUpdateId + 1);
    }
    this.dirty.set(userId, record);
    return record;
  }

  private record(
    realmId: number,
    userId: number,
    times: PresenceTimes,
    changedAt: number,
    updateId: number,
  ): PresenceRecord {
    const realm = this.loaded(realmId);
    realm.lastUpdateId = updateId;
    realm.log.add(updateId, userId);
    const record: PresenceRecord = {
      lastActiveTime: times.lastActiveTime,
      lastConnectedTime: times.lastConnectedTime,
      lastUpdateId: updateId,
      changedAt,
    };
    realm.records.set(userId, record);
    return record;
  }

  /**
   * Writes the changes made since the last flush, in one transaction; shared, then reads
   * the changes flushed since the last read (this one's and other processes').
   */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      await this.writeDirty();
      if (this.options.shared) await this.readFlushed();
    });
    return this.flushing;
  }

  /** Shared: reads the changes flushed since the last read. Serialized with flushes. */
  readOthers(): Promise<void> {
    if (!this.options.shared) return Promise.resolve();
    this.flushing = this.flushing.then(() => this.readFlushed());
    return this.flushing;
  }

  /** Flushes (and, shared, reads what was flushed) every `intervalMs` until stop(). */
  start(intervalMs: number): void {
    this.timer ??= setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Changes not written yet (for tests and shutdown checks). */
  get unflushed(): number {
    return this.dirty.size;
  }

  private loaded(realmId: number): MutableRealmPresence {
    const realm = this.ready.get(realmId);
    if (!realm) throw new Error(`presence of realm ${realmId} is not loaded`);
    return realm;
  }

  private async load(realmId: number): Promise<MutableRealmPresence> {
    const rows = await this.reader("user_presence as p")
      .join("users as u", "u.id", "p.user_id")
      .where("u.realm_id", realmId)
      .select<UserPresenceRow[]>(PRESENCE_COLUMNS);
    let newest = 0;
    const records = new Map<number, PresenceRecord>();
    for (const row of rows) {
      const lastUpdateId = int(row.last_update_id);
      records.set(row.user_id, { ...timesOf(row), lastUpdateId, changedAt: int(row.changed_at) });
      newest = Math.max(newest, lastUpdateId);
    }
    const realm: MutableRealmPresence = {
      records,
      // Alone, numbers handed out but not yet flushed die with a crash; a client may hold
      // one. The sequence goes on past all of them, so such a client's next request (after
      // its number) gets every later change, and none is numbered at or below what it holds.
      lastUpdateId: this.options.shared ? newest : newest + UNFLUSHED_NUMBERS,
      log: new PresenceChangeLog(newest),
      readThrough: newest,
    };
    this.ready.set(realmId, realm);
    return realm;
  }

  private async writeDirty(): Promise<void> {
    if (this.dirty.size === 0) return;
    const batch = this.dirty;
    this.dirty = new Map();
    const shared = this.options.shared === true;
    if (shared) this.writing = batch;
    try {
      await this.db.transaction(async (tx) => {
        // Shared: the next numbers of the one sequence, taken under the write lock.
        let next = shared ? await newestUpdateId(tx.knex) : 0;
        const rows = [...batch].map(([userId, record]) => ({
          user_id: userId,
          last_active_time: record.lastActiveTime,
          last_connected_time: record.lastConnectedTime,
          last_update_id: shared ? ++next : record.lastUpdateId,
          changed_at: record.changedAt,
        }));
        for (let i = 0; i < rows.length; i += FLUSH_CHUNK) {
          const upsert = tx
            .knex("user_presence")
            .insert(rows.slice(i, i + FLUSH_CHUNK))
            .onConflict("user_id")
            .merge();
          // Another process may have written a later change of the same user: it stays.
          if (shared) {
            await upsert.where("user_presence.changed_at", "<=", tx.knex.raw("excluded.changed_at"));
          } else {
            await upsert;
          }
        }
      }, "presence");
    } catch (err) {
      // Retry at the next flush, unless a newer change of the same user replaced it.
      for (const [userId, record] of batch) if (!this.dirty.has(userId)) this.dirty.set(userId, record);
      const code = (err as { code?: unknown }).code;
      const reason = typeof code === "string" ? code : "error";
      this.logger.warn(`writing ${batch.size} presence change(s) failed (${reason}); retrying later`);
    }
  }

  /**
   * Shared: takes the rows flushed (by any process) since the last read, in the order of
   * their numbers. Flushes take numbers under the write lock and commit in that order,
   * so a read sees every change up to the largest number it finds.
   */
  private async readFlushed(): Promise<void> {
    const realms = [...this.ready];
    try {
      if (realms.length > 0) await this.readRowsAfter(realms);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      this.logger.warn(`reading flushed presence failed (${typeof code === "string" ? code : "error"})`);
    } finally {
      this.writing = null;
    }
  }

  private async readRowsAfter(realms: Array<[number, MutableRealmPresence]>): Promise<void> {
    const after = Math.min(...realms.map(([, realm]) => realm.readThrough));
    // By number only (user_presence_last_update_id): rows of realms not loaded are skipped below.
    const rows = await this.reader("user_presence as p")
      .join("users as u", "u.id", "p.user_id")
      .where("p.last_update_id", ">", after)
      .orderBy("p.last_update_id")
      .select<Array<UserPresenceRow & { realm_id: number }>>([...PRESENCE_COLUMNS, "u.realm_id"]);
    let readThrough = after;
    for (const row of rows) {
      const updateId = int(row.last_update_id);
      readThrough = updateId;
      const realm = this.ready.get(row.realm_id);
      if (!realm || updateId <= realm.readThrough) continue;
      const changedAt = int(row.changed_at);
      this.record(row.realm_id, row.user_id, timesOf(row), changedAt, updateId);
      // This process's own older change of the user is outdated: not written.
      const pending = this.dirty.get(row.user_id);
      if (pending && pending.changedAt < changedAt) this.dirty.delete(row.user_id);
    }
    for (const [, realm] of realms) realm.readThrough = Math.max(realm.readThrough, readThrough);
  }
}

/** The largest presence update number written, 0 when none (user_presence_last_update_id). */
async function newestUpdateId(knex: Knex): Promise<number> {
  const row = await knex("user_presence").max<{ id: number | string | null }>("last_update_id as id").first();
  return intOrNull(row?.id) ?? 0;
}

const PRESENCE_COLUMNS = [
  "p.user_id",
  "p.last_active_time",
  "p.last_connected_time",
  "p.last_update_id",
  "p.changed_at",
];

const timesOf = (row: UserPresenceRow): PresenceTimes => ({
  lastActiveTime: intOrNull(row.last_active_time),
  lastConnectedTime: intOrNull(row.last_connected_time),
});
