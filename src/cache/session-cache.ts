import type { Knex } from "knex";

export interface SessionRecord {
  readonly id: number;
  readonly userId: number;
  readonly realmId: number;
  /** UNIX seconds. */
  readonly createdAt: number;
  /** UNIX seconds; advanced in memory on use, written at most every touchIntervalSecs. */
  lastActiveAt: number;
}

/** Beyond this many remembered tokens (sessions and misses) the memory starts over. */
const MAX_REMEMBERED = 50_000;

/** A session's last activity is written at most this often: idle lifetimes are days long. */
export const TOUCH_SECS = 300;

/**
 * How long after its last recorded activity a session's use is written again: TOUCH_SECS,
 * or a tenth of an idle lifetime set shorter (else no use would ever be recorded in time,
 * and every session would end that long after its login however busy it was).
 */
export const touchIntervalSecs = (idleSecs: number) => Math.min(TOUCH_SECS, Math.floor(idleSecs / 10));

/**
 * Web sessions by token hash, loaded one at a time on first use and remembered (a miss
 * too, so a flood of made-up cookies costs one query each, not one per request). Every
 * change to the sessions table drops the lot (logout is rare; a request after it reads
 * once more), in this process and, through `onInvalidate`, in the others.
 */
export class SessionCache {
  private readonly byHash = new Map<string, Promise<SessionRecord | null>>();
  private generation = 0;

  /** `writeTouch` records a session's last activity (in the background, never awaited). */
  constructor(private readonly writeTouch: (sessionId: number, at: number) => Promise<void>) {}

  /** Told of each invalidation (several server processes pass them on: events/replication.ts). */
  onInvalidate: (() => void) | null = null;
  /** Told of sessions that ended, after their commit (their event queues end too). */
  onEnded: ((sessionIds: readonly number[]) => void) | null = null;

  get(knex: Knex, tokenHash: string): Promise<SessionRecord | null> {
    const cached = this.byHash.get(tokenHash);
    if (cached) return cached;
    if (this.byHash.size >= MAX_REMEMBERED) this.byHash.clear();
    const generation = this.generation;
    const loading = loadSession(knex, tokenHash);
    this.byHash.set(tokenHash, loading);
    loading.then(
      () => {
        if (this.generation !== generation && this.byHash.get(tokenHash) === loading) {
          this.byHash.delete(tokenHash);
        }
      },
      () => this.byHash.delete(tokenHash),
    );
    return loading;
  }

  /** Forgets one token's record (re-read, e.g. before refusing it as expired). */
  forget(tokenHash: string): void {
    this.byHash.delete(tokenHash);
  }

  /** The request at `now` used the session: its idle lifetime (`idleSecs`) starts over. */
  touch(record: SessionRecord, now: number, idleSecs: number): void {
    if (now - record.lastActiveAt < touchIntervalSecs(idleSecs)) return;
    record.lastActiveAt = now;
    this.writeTouch(record.id, now).catch(() => undefined);
  }

  /** Sessions deleted by a commit: forgotten here and in other processes, their queues ended. */
  ended(sessionIds: readonly number[]): void {
    this.invalidate();
    this.onEnded?.(sessionIds);
  }

  invalidate(): void {
    this.onInvalidate?.();
    this.clear();
  }

  /** Drops everything without telling other processes (they told us, or are told otherwise). */
  clear(): void {
    this.generation++;
    this.byHash.clear();
  }
}

async function loadSession(knex: Knex, tokenHash: string): Promise<SessionRecord | null> {
  const row = await knex("sessions as s")
    .join("users as u", "u.id", "s.user_id")
    .where("s.token_hash", tokenHash)
    .first<
      | {
          id: number;
          user_id: number;
          realm_id: number;
          created_at: number | string;
          last_active_at: number | string;
        }
      | undefined
    >("s.id", "s.user_id", "u.realm_id", "s.created_at", "s.last_active_at");
  if (!row) return null;
  return {
    id: row.id,
    userId: row.user_id,
    realmId: row.realm_id,
    createdAt: Number(row.created_at),
    lastActiveAt: Number(row.last_active_at),
  };
}
