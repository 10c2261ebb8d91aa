import type { Knex } from "knex";
import type { ChannelFolderRow, ChannelRow, SubscriptionRow } from "../db/channel-rows.js";
import { bool, int } from "../db/rows.js";
import type { Clock } from "./clock.js";
import type { RealmSnapshot } from "./realm-cache.js";

const DAY_SECS = 24 * 3600;
/** Traffic figures are recomputed at least this often even if no channel changes. */
const MAX_AGE_MS = 3600 * 1000;

export const channelNameKey = (name: string) => name.trim().toLowerCase();

/**
 * An immutable picture of a realm's channels: channel rows, every subscription (active
 * and past), default channels, channel folders and recent traffic. Requests read it
 * instead of querying, so listing subscriptions costs no query; every write path that
 * changes these tables calls `tx.afterCommit(() => app.channels.invalidate(realmId))`.
 */
export class ChannelSnapshot {
  readonly channels = new Map<number, ChannelRow>();
  private readonly byNameKey = new Map<string, ChannelRow>();
  private readonly subsByUser = new Map<number, Map<number, SubscriptionRow>>();
  private readonly subscribersByChannel = new Map<number, number[]>();
  readonly defaultChannelIds: ReadonlySet<number>;
  readonly folders = new Map<number, ChannelFolderRow>();
  private readonly activeMemo = new WeakMap<RealmSnapshot, Map<number, readonly number[]>>();

  constructor(
    channels: readonly ChannelRow[],
    subscriptions: readonly SubscriptionRow[],
    defaultChannelIds: readonly number[],
    folders: readonly ChannelFolderRow[],
    /** Messages per channel over the last 28 days (channels at least a week old). */
    private readonly recentTraffic: ReadonlyMap<number, number>,
    /** UNIX seconds when loaded (channel ages for traffic estimates). */
    readonly loadedAt: number,
  ) {
    for (const channel of channels) {
      this.channels.set(channel.id, channel);
      this.byNameKey.set(channel.name_key, channel);
    }
    for (const sub of subscriptions) {
      let own = this.subsByUser.get(sub.user_id);
      if (!own) this.subsByUser.set(sub.user_id, (own = new Map<number, SubscriptionRow>()));
      own.set(sub.stream_id, sub);
      if (!bool(sub.active)) continue;
      const list = this.subscribersByChannel.get(sub.stream_id);
      if (list) list.push(sub.user_id);
      else this.subscribersByChannel.set(sub.stream_id, [sub.user_id]);
    }
    for (const list of this.subscribersByChannel.values()) list.sort((a, b) => a - b);
    this.defaultChannelIds = new Set(defaultChannelIds);
    for (const folder of folders) this.folders.set(folder.id, folder);
  }

  channel(id: number): ChannelRow | undefined {
    return this.channels.get(id);
  }

  /** By name, ignoring case and surrounding spaces; archived channels included. */
  channelByName(name: string): ChannelRow | undefined {
    return this.byNameKey.get(channelNameKey(name));
  }

  /** The user's subscription row (active or not). */
  subscription(userId: number, channelId: number): SubscriptionRow | undefined {
    return this.subsByUser.get(userId)?.get(channelId);
  }

  isSubscribed(userId: number, channelId: number): boolean {
    return bool(this.subscription(userId, channelId)?.active);
  }

  /** Every subscription row of the user, active and past. */
  subscriptionsOf(userId: number): Iterable<SubscriptionRow> {
    return this.subsByUser.get(userId)?.values() ?? [];
  }

  /** Users with an active subscription, deactivated users included, ascending. */
  subscriberIds(channelId: number): readonly number[] {
    return this.subscribersByChannel.get(channelId) ?? [];
  }

  /** Active subscribers who are active users (subscriber lists and counts), ascending. */
  activeSubscriberIds(realm: RealmSnapshot, channelId: number): readonly number[] {
    let memo = this.activeMemo.get(realm);
    if (!memo) this.activeMemo.set(realm, (memo = new Map<number, readonly number[]>()));
    let ids = memo.get(channelId);
    if (!ids) {
      ids = this.subscriberIds(channelId).filter((id) => bool(realm.user(id)?.is_active));
      memo.set(channelId, ids);
    }
    return ids;
  }

  /**
   * Zulip's stream_weekly_traffic: average messages per week over the last four
   * weeks, 2 significant digits; null for channels less than a week old.
   */
  weeklyTraffic(channel: ChannelRow): number | null {
    const ageDays = Math.floor((this.loadedAt - int(channel.date_created)) / DAY_SECS);
    if (ageDays < 7) return null;
    const total = this.recentTraffic.get(channel.id) ?? 0;
    let average = ageDays >= 28 ? Math.floor(total / 4) : Math.floor((total * 7) / ageDays);
    if (average === 0 && total > 0) average = 1;
    return roundTo2SignificantDigits(average);
  }
}

/** Python's int(round(n, 2 - len(str(n)))), ties to even. */
export function roundTo2SignificantDigits(n: number): number {
  const digits = 2 - String(n).length;
  if (digits >= 0) return n;
  const factor = 10 ** -digits;
  const scaled = n / factor;
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  const rounded = diff > 0.5 || (diff === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
  return rounded * factor;
}

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

  invalidate(realmId: number): void {
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
