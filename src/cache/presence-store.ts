import type { Knex } from "knex";
import { systemClock, type Clock } from "../clock.js";
import { int, intOrNull, type UserPresenceRow } from "../db/rows.js";
import type { Db } from "../db/tx.js";
import type { PresenceTimes } from "../lib/presence.js";
import type { Logger } from "../logger.js";

export interface PresenceRecord extends PresenceTimes {
  /** The realm's presence sequence number of this change (Zulip's last_update_id). */
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
  /** Who changed, by update ID: log[i] is the user of update logStart + i. */
  log: number[];
  logStart: number;
}

/** Changes remembered for changedSince(); beyond that, readers start over. */
const CHANGE_LOG_LIMIT = 10_000;

/** Rows per INSERT: 5 bound values each stays well under SQLite's variable limit. */
const FLUSH_CHUNK = 200;

/**
 * Users' presence, the source of truth for reads. Every client pings every minute, so a
 * change is kept here and written to user_presence later with the others, in one
 * transaction per flush (every presence_flush_interval_ms, and at shutdown), instead of
 * a transaction per ping. A crash loses at most one interval of changes: "last seen"
 * times a little too old, which the next pings correct. A realm is read from the
 * database once, on first use.
 *
 * Several processes (`shared`: workers, or servers on several machines): each takes
 * pings and flushes them, and after each flush reads the rows the others flushed since
 * it last looked, so a ping taken by one shows in the others' reads within about two
 * flush intervals (README, "Several workers"). A write never replaces a row recorded
 * later (`changed_at`), whichever process flushes last. Update IDs stay per process:
 * another process's change gets the next ID of the process that reads it.
 */
export class PresenceStore {
  private readonly realms = new Map<number, Promise<MutableRealmPresence>>();
  private readonly ready = new Map<number, MutableRealmPresence>();
  /** Changes not yet written, by user ID. */
  private dirty = new Map<number, PresenceRecord>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  /** Shared: the last read of others' changes started at this time (ms); null before any. */
  private readSinceMs: number | null = null;
  private intervalMs = 0;

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
   * A user's presence, if any. Like `set`, synchronous and only for a loaded realm
   * (await `realm()` first), so a caller reads, decides and writes with nothing between.
   */
  get(realmId: number, userId: number): PresenceRecord | undefined {
    return this.loaded(realmId).records.get(userId);
  }

  /**
   * The users whose presence changed after update `updateId` (repeats possible), or
   * null when that is too long ago to tell.
   */
  changedSince(realmId: number, updateId: number): readonly number[] | null {
    const realm = this.loaded(realmId);
    if (updateId + 1 < realm.logStart || updateId > realm.lastUpdateId) return null;
    return realm.log.slice(updateId + 1 - realm.logStart);
  }

  /** Records a user's new presence under the realm's next sequence number. */
  set(realmId: number, userId: number, times: PresenceTimes): PresenceRecord {
    const record = this.record(realmId, userId, times, this.clock.nowMs());
    this.dirty.set(userId, record);
    return record;
  }

  private record(realmId: number, userId: number, times: PresenceTimes, changedAt: number): PresenceRecord {
    const realm = this.loaded(realmId);
    realm.lastUpdateId += 1;
    realm.log.push(userId);
    if (realm.log.length > CHANGE_LOG_LIMIT) {
      const dropped = realm.log.length - CHANGE_LOG_LIMIT / 2;
      realm.log.splice(0, dropped);
      realm.logStart += dropped;
    }
    const record: PresenceRecord = {
      lastActiveTime: times.lastActiveTime,
      lastConnectedTime: times.lastConnectedTime,
      lastUpdateId: realm.lastUpdateId,
      changedAt,
    };
    realm.records.set(userId, record);
    return record;
  }

  /** Writes the changes made since the last flush, in one transaction. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeDirty());
    return this.flushing;
  }

  /**
   * Reads the changes other processes flushed since the last read (only when shared;
   * after each timed flush). Serialized with flushes.
   */
  readOthers(): Promise<void> {
    if (!this.options.shared) return Promise.resolve();
    this.flushing = this.flushing.then(() => this.mergeFlushed());
    return this.flushing;
  }

  /** Flushes (and, shared, reads others' changes) every `intervalMs` until stop(). */
  start(intervalMs: number): void {
    this.intervalMs = intervalMs;
    this.timer ??= setInterval(() => {
      void this.flush();
      void this.readOthers();
    }, intervalMs);
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
    const realm: MutableRealmPresence = { records: new Map(), lastUpdateId: 0, log: [], logStart: 1 };
    for (const row of rows) {
      const lastUpdateId = int(row.last_update_id);
      realm.records.set(row.user_id, { ...timesOf(row), lastUpdateId, changedAt: int(row.changed_at) });
      realm.lastUpdateId = Math.max(realm.lastUpdateId, lastUpdateId);
    }
    realm.logStart = realm.lastUpdateId + 1;
    this.ready.set(realmId, realm);
    return realm;
  }

  private async writeDirty(): Promise<void> {
    if (this.dirty.size === 0) return;
    const batch = this.dirty;
    this.dirty = new Map();
    const rows = [...batch].map(([userId, record]) => ({
      user_id: userId,
      last_active_time: record.lastActiveTime,
      last_connected_time: record.lastConnectedTime,
      last_update_id: record.lastUpdateId,
      changed_at: record.changedAt,
    }));
    try {
      await this.db.transaction(async (tx) => {
        for (let i = 0; i < rows.length; i += FLUSH_CHUNK) {
          const upsert = tx
            .knex("user_presence")
            .insert(rows.slice(i, i + FLUSH_CHUNK))
            .onConflict("user_id")
            .merge();
          // Another process may have written a later change of the same user: it stays.
          if (this.options.shared) {
            await upsert.where("user_presence.changed_at", "<=", tx.knex.raw("excluded.changed_at"));
          } else {
            await upsert;
          }
        }
      });
    } catch (err) {
      // Retry at the next flush, unless a newer change of the same user replaced it.
      for (const [userId, record] of batch) if (!this.dirty.has(userId)) this.dirty.set(userId, record);
      const code = (err as { code?: unknown }).code;
      const reason = typeof code === "string" ? code : "error";
      this.logger.warn(`writing ${batch.size} presence change(s) failed (${reason}); retrying later`);
    }
  }

  /**
   * Takes the rows other processes flushed since the last read. A process flushes a
   * change within its flush interval (plus the flush's own time), so rows recorded up to
   * two intervals and a margin before the last read began may be new; those already
   * known, or older than what is held, are skipped. Machines' clocks must agree (NTP).
   */
  private async mergeFlushed(): Promise<void> {
    const realmIds = [...this.ready.keys()];
    const startedMs = this.clock.nowMs();
    if (realmIds.length === 0) return;
    const sinceMs = this.readSinceMs === null ? 0 : this.readSinceMs - 2 * this.intervalMs - MERGE_MARGIN_MS;
    try {
      const rows = await this.reader("user_presence as p")
        .join("users as u", "u.id", "p.user_id")
        .whereIn("u.realm_id", realmIds)
        .where("p.changed_at", ">", sinceMs)
        .select<Array<UserPresenceRow & { realm_id: number }>>([...PRESENCE_COLUMNS, "u.realm_id"]);
      for (const row of rows) {
        const changedAt = int(row.changed_at);
        const held = this.ready.get(row.realm_id)?.records.get(row.user_id);
        if (held && held.changedAt >= changedAt) continue;
        this.record(row.realm_id, row.user_id, timesOf(row), changedAt);
        // This process's own older change of the user is outdated: not written.
        const pending = this.dirty.get(row.user_id);
        if (pending && pending.changedAt < changedAt) this.dirty.delete(row.user_id);
      }
      this.readSinceMs = startedMs;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      this.logger.warn(
        `reading other processes' presence failed (${typeof code === "string" ? code : "error"})`,
      );
    }
  }
}

/** Slack beyond two flush intervals for a row to be flushed after it was recorded. */
const MERGE_MARGIN_MS = 10_000;

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
