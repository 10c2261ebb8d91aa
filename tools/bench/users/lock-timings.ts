// The write lock's timings chatd writes under CHATD_LOCK_TIMINGS_DIR (src/db/lock-timings.ts),
// summed up over the simulation's window by kind of transaction.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { percentile, round } from "../stats.js";

interface LockTiming {
  /** UNIX milliseconds at the transaction's end. */
  at: number;
  kind: string;
  /** Events the transaction published (a send batch's messages, a flag batch's updates). */
  items: number;
  wait_ms: number;
  hold_ms: number;
}

export interface LockStat {
  /** Transactions in the window. */
  n: number;
  items_mean: number;
  hold_p50_ms: number;
  hold_p99_ms: number;
  wait_p99_ms: number;
  /** The share of the window the lock was held by such transactions. */
  busy_pct: number;
}

/** The simulation's transactions by their first event's type (presence flushes label themselves). */
const KINDS: Record<string, string> = { message: "send", update_message_flags: "flags" };

/** Every timing chatd's processes wrote to `dir`. */
export async function readLockTimings(dir: string): Promise<LockTiming[]> {
  const timings: LockTiming[] = [];
  for (const file of await readdir(dir)) {
    const text = await readFile(join(dir, file), "utf8");
    for (const line of text.split("\n")) if (line) timings.push(JSON.parse(line) as LockTiming);
  }
  return timings;
}

/** Per kind (and "all"), the transactions that ended in [from, to] (UNIX milliseconds). */
export function lockStats(timings: LockTiming[], from: number, to: number): Record<string, LockStat> {
  const inWindow = timings.filter((t) => t.at >= from && t.at <= to);
  const byKind = new Map<string, LockTiming[]>([["all", inWindow]]);
  for (const t of inWindow) {
    const kind = KINDS[t.kind] ?? t.kind;
    const list = byKind.get(kind) ?? [];
    list.push(t);
    byKind.set(kind, list);
  }
  const stats: Record<string, LockStat> = {};
  for (const [kind, list] of byKind) {
    const holds = list.map((t) => t.hold_ms);
    stats[kind] = {
      n: list.length,
      items_mean: round(list.reduce((a, t) => a + t.items, 0) / Math.max(1, list.length), 2),
      hold_p50_ms: round(percentile(holds, 50), 2),
      hold_p99_ms: round(percentile(holds, 99), 2),
      wait_p99_ms: round(
        percentile(
          list.map((t) => t.wait_ms),
          99,
        ),
        2,
      ),
      busy_pct: round((100 * holds.reduce((a, b) => a + b, 0)) / Math.max(1, to - from), 2),
    };
  }
  return stats;
}
