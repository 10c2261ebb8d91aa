import type { Knex } from "knex";
import { isPostgres } from "./dialect.js";
import { watchExternalChanges as watchPostgres } from "./pg-change-watch.js";
import { watchExternalChanges as watchSqlite } from "./sqlite-change-watch.js";

/**
 * Calls `onChange` after another process (an admin command) commits: PRAGMA data_version
 * or LISTEN. Resolves, with the function that stops it, once a commit from then on is sure
 * to be noticed.
 */
export function watchExternalChanges(
  knex: Knex,
  intervalMs: number,
  onChange: () => void,
): Promise<() => void> {
  return (isPostgres(knex) ? watchPostgres : watchSqlite)(knex, intervalMs, onChange);
}
