import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Knex } from "knex";
import type { App } from "../app.js";
import { emailHost, realmUrl, type Config } from "../config.js";
import { claimable, claimRows, releaseClaim } from "../db/claims.js";
import { insertReturningId } from "../db/insert.js";
import { bool, int, intOrNull, type DbBigInt, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { EXPORT_TYPE, type ExportType } from "../lib/zulip-export/scope.js";
import { isAdminRole, isOwnerRole } from "../world/roles.js";
import type { WireRealmExport } from "../wire/events.js";

/**
 * Data exports through the API (Zulip's zerver/views/realm_export.py and
 * zerver/actions/realm_export.py): POST /export/realm records a requested export and
 * returns at once; the app's `realmExports` timer claims it (db/claims.ts: one process
 * runs each) and writes the archive off the request path into the upload store, served
 * from an unguessable /user_avatars/ URL as Zulip's local backend serves it.
 */

// Loaded when an export runs: serving requests never needs them (test/cli/lazy-loading.test.ts).
const zulipExport = () => import("../lib/zulip-export/write-export.js");
const readSnapshot = () => import("../db/read-snapshot.js");

/** Zulip's EXPORT_LIMIT: exports an organization may start in 7 days. */
export const EXPORT_LIMIT = 5;
const EXPORT_LIMIT_WINDOW_MS = 7 * 24 * 3600 * 1000;
/** A claim outlives any export (a crashed run's is taken over after this). */
const LEASE_MS = 6 * 3600 * 1000;

type Status = "requested" | "started" | "succeeded" | "failed" | "deleted";

interface ExportRow {
  id: number;
  realm_id: number;
  acting_user_id: number | null;
  export_type: number;
  status: Status;
  date_requested: DbBigInt;
  date_failed: DbBigInt | null;
  date_deleted: DbBigInt | null;
  export_key: string | null;
}

/** Zulip's get_realm_exports_serialized. */
export function presentExport(config: Config, row: ExportRow): WireRealmExport {
  const deleted = intOrNull(row.date_deleted);
  const failed = intOrNull(row.date_failed);
  return {
    id: row.id,
    acting_user_id: row.acting_user_id,
    export_time: int(row.date_requested) / 1000,
    deleted_timestamp: deleted === null ? null : deleted / 1000,
    failed_timestamp: failed === null ? null : failed / 1000,
    export_url:
      row.export_key !== null && deleted === null
        ? `${realmUrl(config)}/user_${row.export_key.split("/").map(encodeURIComponent).join("/")}`
        : null,
    pending: row.status === "requested" || row.status === "started",
    export_type: row.export_type,
  };
}

export async function realmExports(
  app: App,
  knex: Knex | Knex.Transaction,
  realmId: number,
): Promise<WireRealmExport[]> {
  const rows = await knex("realm_exports")
    .where({ realm_id: realmId })
    .orderBy("id")
    .select<ExportRow[]>("*");
  return rows.map((row) => presentExport(app.config, row));
}

/** Zulip's notify_realm_export: every export, to the organization's administrators. */
async function notifyExports(app: App, tx: Tx, realmId: number): Promise<void> {
  const realm = await app.realms.get(tx.knex, realmId);
  const admins = [...realm.users]
    .filter((u) => bool(u.is_active) && !bool(u.is_bot) && isAdminRole(u.role))
    .map((u) => u.id);
  tx.sendEventOnCommit(
    realmId,
    { type: "realm_export", exports: await realmExports(app, tx.knex, realmId) },
    admins,
  );
}

/** POST /export/realm: checks Zulip's rules, records the export and wakes the worker. */
export async function checkStartRealmExport(
  app: App,
  user: UserRow,
  exportType: ExportType,
): Promise<number> {
  const nowMs = app.clock.nowMs();
  return app.db.transaction(async (tx) => {
    const recent = await tx
      .knex("realm_exports")
      .where({ realm_id: user.realm_id })
      .where("date_requested", ">=", nowMs - EXPORT_LIMIT_WINDOW_MS)
      .count<Array<{ n: DbBigInt }>>({ n: "*" });
    if (int(recent[0]?.n ?? 0) >= EXPORT_LIMIT) throw badRequest("Exceeded rate limit.");
    const realm = await app.realms.get(tx.knex, user.realm_id);
    const owners = [...realm.users].filter(
      (u) => bool(u.is_active) && !bool(u.is_bot) && isOwnerRole(u.role),
    );
    // Zulip's check_export_with_consent_is_usable / check_public_export_is_usable: the
    // imported organization needs an owner who can log in (consenting; a visible address).
    if (
      exportType === EXPORT_TYPE.fullWithConsent &&
      !owners.some((u) => bool(u.allow_private_data_export))
    ) {
      throw badRequest("Make sure at least one Organization Owner is consenting to the export.");
    }
    if (exportType === EXPORT_TYPE.public && !owners.some((u) => u.email_address_visibility !== 5)) {
      throw badRequest(
        "Make sure at least one Organization Owner allows other Administrators to see their email address.",
      );
    }
    const id = await insertReturningId(tx.knex, "realm_exports", {
      realm_id: user.realm_id,
      acting_user_id: user.id,
      export_type: exportType,
      status: "requested",
      date_requested: nowMs,
    });
    await notifyExports(app, tx, user.realm_id);
    tx.afterCommit(() => app.realmExports.noteDue(app.clock.nowMs() / 1000));
    return id;
  });
}

/** DELETE /export/realm/{export_id}: Zulip's delete_realm_export. */
export async function checkDeleteRealmExport(app: App, user: UserRow, exportId: number): Promise<void> {
  const key = await app.db.transaction(async (tx) => {
    const row = await tx
      .knex("realm_exports")
      .where({ realm_id: user.realm_id, id: exportId })
      .first<ExportRow | undefined>("*");
    if (!row) throw badRequest("Invalid data export ID");
    if (row.status === "deleted") throw badRequest("Export already deleted");
    if (row.status === "failed") throw badRequest("Export failed, nothing to delete");
    if (row.status !== "succeeded") throw badRequest("Export still in progress");
    await tx
      .knex("realm_exports")
      .where({ id: row.id })
      .update({ status: "deleted", date_deleted: app.clock.nowMs() });
    await notifyExports(app, tx, user.realm_id);
    return row.export_key;
  });
  if (key !== null) await app.uploads.delete(key);
}

/** GET /export/realm/consents: each active human's allow_private_data_export. */
export function exportConsents(realm: Iterable<UserRow>): Array<{ user_id: number; consented: boolean }> {
  return [...realm]
    .filter((u) => bool(u.is_active) && !bool(u.is_bot))
    .map((u) => ({ user_id: u.id, consented: bool(u.allow_private_data_export) }));
}

/** The worker (the app's `realmExports` timer): runs each requested export once. */
export async function runDueRealmExports(app: App): Promise<number | null> {
  const nowMs = app.clock.nowMs();
  const due = (q: Knex.QueryBuilder) => q.whereIn("status", ["requested", "started"]);
  const ids = await claimable(due(app.knex("realm_exports")), nowMs)
    .orderBy("id")
    .limit(1)
    .pluck<number[]>("id");
  if (ids.length === 0) return nextLeaseEnd(app);
  const claimed = await app.db.transaction((tx) =>
    claimRows(tx.knex, "realm_exports", ids, { nowMs, leaseMs: LEASE_MS }, due),
  );
  for (const id of claimed) await runExport(app, id);
  return app.clock.nowMs() / 1000;
}

async function nextLeaseEnd(app: App): Promise<number | null> {
  const row = await app
    .knex("realm_exports")
    .whereIn("status", ["requested", "started"])
    .first<{ next: DbBigInt | null } | undefined>(app.knex.raw("MIN(claimed_until) AS next"));
  return row?.next == null ? null : int(row.next) / 1000;
}

async function runExport(app: App, id: number): Promise<void> {
  const row = await app.knex("realm_exports").where({ id }).first<ExportRow>("*");
  await app.db.transaction(async (tx) => {
    await tx
      .knex("realm_exports")
      .where({ id })
      .update({ status: "started", date_started: app.clock.nowMs() });
  });
  const token = randomBytes(18).toString("base64url");
  const name = `zulip-export-${randomBytes(4).toString("hex")}.tar.gz`;
  const output = join(app.uploads.tempDir(), name);
  const key = `avatars/${row.realm_id}/exports/${token}/${name}`;
  let failed = false;
  try {
    const { writeZulipExport } = await zulipExport();
    const snapshot = await (await readSnapshot()).openReadSnapshot(app.config, app.uploads.tempDir());
    try {
      await writeZulipExport({
        knex: snapshot.knex,
        store: app.uploads,
        realmId: row.realm_id,
        exportType:
          row.export_type === EXPORT_TYPE.fullWithConsent ? EXPORT_TYPE.fullWithConsent : EXPORT_TYPE.public,
        output,
        host: emailHost(app.config),
      });
    } finally {
      await snapshot.close();
    }
    await app.uploads.putFile(key, output);
  } catch (err) {
    failed = true;
    app.logger.error(`data export ${id} failed`, err);
    await rm(output, { force: true }).catch(() => undefined);
  }
  await app.db.transaction(async (tx) => {
    await tx
      .knex("realm_exports")
      .where({ id })
      .update(
        failed
          ? { status: "failed", date_failed: app.clock.nowMs(), ...releaseClaim }
          : { status: "succeeded", date_succeeded: app.clock.nowMs(), export_key: key, ...releaseClaim },
      );
    await notifyExports(app, tx, row.realm_id);
  });
}
