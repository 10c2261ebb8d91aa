import type { Knex } from "knex";
import type { ChannelFolderRow, ChannelRow, SubscriptionRow } from "../db/channel-rows.js";
import { int } from "../db/rows.js";
import type { Clock } from "../clock.js";
import { ChannelSnapshot } from "../world/channels.js";

/** Traffic figures are recomputed at least this often even if no channel changes. */
const MAX_AGE_MS = 3600 * 1000;
const DAY_SECS = 24 * 3600;

interface Entry {
  snapshot: Promise<ChannelSnapshot>;
  loadedAtMs: number;
}

/** Caches channel snapshots per realm; loads lazily, drops on invalidation. */
export class ChannelCache {
  private readonly entries = new Map<number, Entry>();
  private readonly generations = new Map<number, number>();

  constructor(private readonly clock: Clock) {}

  /**
   * The realm's channels. Inside a transaction pass the transaction's knex: a cached
   * snapshot is the committed state (writes are serial and invalidate on commit); a
   * fresh load there may see the transaction's own writes, so it is never cached.
   */
  get(knex: Knex, realmId: number): Promise<ChannelSnapshot> {
    const inTransaction = (knex as Knex & { isTransaction?: boolean }).isTransaction === true;
    const cached = this.entries.get(realmId);
    const nowMs = this.clock.nowMs();
    if (cached && (inTransaction || nowMs - cached.loadedAtMs < MAX_AGE_MS)) return cached.snapshot;
    if (inTransaction) return loadChannelSnapshot(knex, realmId, nowMs);
    const generation = this.generations.get(realmId) ?? 0;
    // One read transaction: no write may commit between the snapshot's queries.
    const loading = knex.transaction((trx) => loadChannelSnapshot(trx, realmId, nowMs));
    const entry = { snapshot: loading, loadedAtMs: nowMs };
    this.entries.set(realmId, entry);
    loading.then(
      () => {
        if ((this.generations.get(realmId) ?? 0) !== generation && this.entries.get(realmId) === entry) {
          this.entries.delete(realmId);
        }
      },
      () => {
        if (this.entries.get(realmId) === entry) this.entries.delete(realmId);
      },
    );
    return loading;
  }

  /**
   * The realm's channels read now through `knex`, never cached: inside a transaction,
   * what its own writes made of them.
   */
  fresh(knex: Knex, realmId: number): Promise<ChannelSnapshot> {
    return loadChannelSnapshot(knex, realmId, this.clock.nowMs());
  }

  /** Told of each invalidation (several server processes pass them on: events/replication.ts). */
  onInvalidate: ((cache: "channels", realmId: number) => void) | null = null;

  invalidate(realmId: number): void {
    this.onInvalidate?.("channels", realmId);
    this.generations.set(realmId, (this.generations.get(realmId) ?? 0) + 1);
    this.entries.delete(realmId);
  }

  /** After writes by another process, which could have touched any realm. */
  invalidateAll(): void {
    for (const realmId of new Set([...this.entries.keys(), ...this.generations.keys()]))
      this.invalidate(realmId);
  }
}

async function loadChannelSnapshot(knex: Knex, realmId: number, nowMs: number): Promise<ChannelSnapshot> {
  const now = Math.floor(nowMs / 1000);
  const channels = await knex<ChannelRow>("streams").where({ realm_id: realmId }).orderBy("id");
  const subscriptions = await knex("subscriptions as s")
    .join("streams as c", "c.id", "s.stream_id")
    .where("c.realm_id", realmId)
    .orderBy("s.id")
    .select<SubscriptionRow[]>("s.*");
  const defaults = await knex("default_streams")
    .where({ realm_id: realmId })
    .select<Array<{ stream_id: number }>>("stream_id");
  const folders = await knex<ChannelFolderRow>("channel_folders").where({ realm_id: realmId }).orderBy("id");
  const weekOld = channels.filter((c) => now - int(c.date_created) >= 7 * DAY_SECS).map((c) => c.id);
  const traffic = new Map<number, number>();
  if (weekOld.length > 0) {
    const rows = await knex("messages")
      .where({ realm_id: realmId })
      .whereNotNull("stream_id")
      .where("date_sent", ">=", now - 28 * DAY_SECS)
      .groupBy("stream_id")
      .select<Array<{ stream_id: number; n: number | string }>>("stream_id", knex.raw("count(*) as n"));
    const wanted = new Set(weekOld);
    for (const row of rows) if (wanted.has(row.stream_id)) traffic.set(row.stream_id, Number(row.n));
  }
  return new ChannelSnapshot(
    channels,
    subscriptions,
    defaults.map((d) => d.stream_id),
    folders,
    traffic,
    now,
  );
}
