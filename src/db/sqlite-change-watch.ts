import type { Knex } from "knex";

/**
 * SQLite-only: notices commits made by other processes (the `chatd` admin commands
 * write to the database directly). PRAGMA data_version changes only when another
 * connection commits, so one cheap query per interval tells the server to drop its
 * in-memory caches. A PostgreSQL deployment would use LISTEN/NOTIFY instead.
 */
export function watchExternalChanges(knex: Knex, intervalMs: number, onChange: () => void): () => void {
  let last: number | null = null;
  let running = false;
  const check = () => {
    if (running) return;
    running = true;
    knex
      .raw("PRAGMA data_version")
      .then((rows: Array<Record<string, unknown>>) => {
        const version = Number(Object.values(rows[0] ?? {})[0]);
        if (last !== null && version !== last) onChange();
        last = version;
      })
      .catch(() => undefined)
      .finally(() => (running = false));
  };
  check(); // the baseline, so a change right after start is noticed too
  const timer = setInterval(check, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
