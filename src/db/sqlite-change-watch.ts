import type { Knex } from "knex";

/**
 * SQLite-only: notices commits made by other processes (the `chatd` admin commands
 * write to the database directly). PRAGMA data_version changes only when another
 * connection commits, so one cheap query per interval tells the server to drop its
 * in-memory caches. Resolves once armed. pg-change-watch.ts is the PostgreSQL counterpart.
 */
export async function watchExternalChanges(
  knex: Knex,
  intervalMs: number,
  onChange: () => void,
): Promise<() => void> {
  let last: number | null = null;
  let running: Promise<void> | null = null;
  const poll = () => {
    if (running) return running;
    running = knex
      .raw("PRAGMA data_version")
      .then((rows: Array<Record<string, unknown>>) => {
        const version = Number(Object.values(rows[0] ?? {})[0]);
        if (last !== null && version !== last) onChange();
        last = version;
      })
      .catch(() => undefined)
      .finally(() => (running = null));
    return running;
  };
  // The baseline, read before the watch counts as armed: a commit after this resolves is noticed.
  await poll();
  const timer = setInterval(() => void poll(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
