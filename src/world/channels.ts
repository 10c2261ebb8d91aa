import type { ChannelFolderRow, ChannelRow, SubscriptionRow } from "../db/channel-rows.js";
import { bool, int } from "../db/rows.js";
import type { RealmSnapshot } from "./realm.js";

const DAY_SECS = 24 * 3600;

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
