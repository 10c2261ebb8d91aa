import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Knex } from "knex";

/**
 * Claiming rows of a work queue (outgoing webhook deliveries, scheduled messages) before
 * doing their work, so that of several processes, on one machine or several over one
 * PostgreSQL, exactly one does each. A claim is a lease: `claimed_until` (milliseconds),
 * after which the row may be claimed again, so the work of a claimer that died is done
 * by another (or by the same server after a restart) once the lease runs out.
 *
 * The claim is one UPDATE guarded by "unclaimed or lease over". Write transactions are
 * serialized (SQLite's single writer; PostgreSQL's advisory write lock, db/tx.ts), and even
 * without that PostgreSQL re-checks the guard on a row another transaction just updated,
 * so no two claimers ever both get a row. Knex's portable subset: no RETURNING.
 */

/** This process, in `claimed_by` (for an operator reading the table; claims use tokens). */
const PROCESS = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
let claims = 0;

/** Rows whose lease is over or that nobody claimed: what may be claimed at `nowMs`. */
export function claimable(query: Knex.QueryBuilder, nowMs: number): Knex.QueryBuilder {
  return query.where((q) => {
    void q.whereNull("claimed_until").orWhere("claimed_until", "<=", nowMs);
  });
}

/**
 * Claims those of `ids` nobody holds (in `table`, whose rows also match `where`), until
 * `nowMs + leaseMs`; returns the IDs this call got, in no particular order.
 */
export async function claimRows(
  knex: Knex | Knex.Transaction,
  table: string,
  ids: readonly number[],
  lease: { nowMs: number; leaseMs: number },
  where: (query: Knex.QueryBuilder) => Knex.QueryBuilder = (query) => query,
): Promise<number[]> {
  if (ids.length === 0) return [];
  const token = `${PROCESS}#${++claims}`;
  const claimed = await where(claimable(knex(table).whereIn("id", ids), lease.nowMs)).update({
    claimed_by: token,
    claimed_until: lease.nowMs + lease.leaseMs,
  });
  if (claimed === 0) return [];
  return knex(table).whereIn("id", ids).where({ claimed_by: token }).pluck<number[]>("id");
}

/** Gives claimed rows back at once (the work is done, or will be retried later). */
export const releaseClaim = { claimed_by: null, claimed_until: null } as const;

/** The tables whose rows are claimed. */
const CLAIMED_TABLES = [
  "outgoing_webhook_deliveries",
  "scheduled_messages",
  "emails",
  "realm_exports",
] as const;

/**
 * Gives back every claim: for a server that alone holds its database (SQLite's data
 * directory lock), where any claim left is a crashed run's, so its work goes out at once.
 */
export async function releaseAllClaims(knex: Knex | Knex.Transaction): Promise<void> {
  for (const table of CLAIMED_TABLES) await knex(table).whereNotNull("claimed_until").update(releaseClaim);
}
