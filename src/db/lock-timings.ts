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
}

const FLUSH_EVERY_MS = 1000;

function fileTimer(dir: string): LockTimer {
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
  return {
    record(kind, items, waitMs, holdMs) {
      const round = (ms: number) => Math.round(ms * 1000) / 1000;
      lines.push(
        `${JSON.stringify({ at: Date.now(), kind, items, wait_ms: round(waitMs), hold_ms: round(holdMs) })}\n`,
      );
    },
  };
}

const dir = process.env.CHATD_LOCK_TIMINGS_DIR;
/** The process's timer, or null (the default: nothing is timed). */
export const lockTimer: LockTimer | null = dir ? fileTimer(dir) : null;
