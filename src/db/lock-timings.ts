import { appendFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Off unless CHATD_LOCK_TIMINGS_DIR names a directory (the benchmark's users simulation sets
 * it): how long each write transaction waited for the write lock (BEGIN IMMEDIATE on SQLite,
 * the advisory lock on PostgreSQL) and held it, up to its COMMIT's answer. One JSON line per
 * transaction, {at, kind, items, wait_ms, hold_ms}, appended about once a second to
 * lock-timings-<pid>.ndjson there (a process of `serve --workers N` each to its own file).
 */
export interface LockTimer {
  record(kind: string, items: number, waitMs: number, holdMs: number): void;
  /** Writes what was recorded since the last write. */
  flush(): void;
}

const FLUSH_EVERY_MS = 1000;

/** A timer writing to `dir`, every second and at exit. */
export function fileLockTimer(dir: string): LockTimer {
  const file = join(dir, `lock-timings-${process.pid}.ndjson`);
  let lines: string[] = [];
  const flush = () => {
    if (lines.length === 0) return;
    const text = lines.join("");
    lines = [];
    appendFileSync(file, text);
  };
  setInterval(flush, FLUSH_EVERY_MS).unref();
  process.on("exit", flush);
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    record(kind, items, waitMs, holdMs) {
      const line = { at: Date.now(), kind, items, wait_ms: round(waitMs), hold_ms: round(holdMs) };
      lines.push(`${JSON.stringify(line)}\n`);
    },
    flush,
  };
}

const dir = process.env.CHATD_LOCK_TIMINGS_DIR;
let current: LockTimer | null = dir ? fileLockTimer(dir) : null;

/** The process's timer, or null (the default: nothing is timed). */
export const lockTimer = (): LockTimer | null => current;

/** Replaces the process's timer (tests). */
export function setLockTimer(timer: LockTimer | null): void {
  current = timer;
}
