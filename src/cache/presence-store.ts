import type { Knex } from "knex";
import { int, intOrNull, type UserPresenceRow } from "../db/rows.js";
import type { Db } from "../db/tx.js";
import type { PresenceTimes } from "../lib/presence.js";
import type { Logger } from "../logger.js";

export interface PresenceRecord extends PresenceTimes {
  /** The realm's presence sequence number of this change (Zulip's last_update_id). */
  readonly lastUpdateId: number;
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

/** Rows per INSERT: 4 bound values each stays well under SQLite's variable limit. */
const FLUSH_CHUNK = 200;

/**
 * Users' presence, the source of truth for reads. Every client pings every minute, so a
 * change is kept here and written to user_presence later with the others, in one
 * transaction per flush (every presence_flush_interval_ms, and at shutdown), instead of
 * a transaction per ping. A crash loses at most one interval of changes: "last seen"
 * times a little too old, which the next pings correct. Only the serving process
 * writes presence; a realm is read from the database once, on first use.
 */
export class PresenceStore {
  private readonly realms = new Map<number, Promise<MutableRealmPresence>>();
  private readonly ready = new Map<number, MutableRealmPresence>();
  /** Changes not yet written, by user ID. */
  private dirty = new Map<number, PresenceRecord>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly reader: Knex,
    private readonly logger: Logger,
  ) {}

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
    const realm = this.loaded(realmId);
    realm.lastUpdateId += 1;
    realm.log.push(userId);
    if (realm.log.length > CHANGE_LOG_LIMIT) {
      const dropped = realm.log.length - CHANGE_LOG_LIMIT / 2;
      realm.log.splice(0, dropped);
      realm.logStart += dropped;
    }
    const record: PresenceRecord = { ...times, lastUpdateId: realm.lastUpdateId };
    realm.records.set(userId, record);
    this.dirty.set(userId, record);
    return record;
  }

  /** Writes the changes made since the last flush, in one transaction. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeDirty());
    return this.flushing;
  }

  /** Flushes every `intervalMs` until stop(). */
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
      .select<UserPresenceRow[]>(
        "p.user_id",
        "p.last_active_time",
        "p.last_connected_time",
        "p.last_update_id",
      );
    const realm: MutableRealmPresence = { records: new Map(), lastUpdateId: 0, log: [], logStart: 1 };
    for (const row of rows) {
      const lastUpdateId = int(row.last_update_id);
      realm.records.set(row.user_id, {
        lastActiveTime: intOrNull(row.last_active_time),
        lastConnectedTime: intOrNull(row.last_connected_time),
        lastUpdateId,
      });
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
    }));
    try {
      await this.db.transaction(async (tx) => {
        for (let i = 0; i < rows.length; i += FLUSH_CHUNK) {
          await tx
            .knex("user_presence")
            .insert(rows.slice(i, i + FLUSH_CHUNK))
            .onConflict("user_id")
            .merge();
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
}
