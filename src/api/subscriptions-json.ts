import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { RawJson } from "../lib/raw-json.js";
import type { ChannelWorld } from "../permissions/channel-access.js";
import { gatherSubscriptions, type IncludeSubscribers } from "../queries/subscriptions.js";
import type { ChannelSnapshot } from "../world/channels.js";
import type { RealmSnapshot } from "../world/realm.js";

/** Past this many bytes of one snapshot's lists, they start over (10,000 users' worth stays bounded). */
const MAX_BYTES = 8 * 1024 * 1024;

interface Presented {
  bytes: number;
  lists: Map<string, RawJson>;
}

/**
 * Each user's GET /users/me/subscriptions list, encoded once per pair of snapshots it
 * was presented from: a change of channels, subscriptions, users or roles replaces a
 * snapshot (the caches' invalidation, in this process or through the event log), and
 * with it every list presented from the old one.
 */
const presented = new WeakMap<ChannelSnapshot, WeakMap<RealmSnapshot, Presented>>();

export async function subscriptionsJson(
  app: App,
  world: ChannelWorld,
  user: UserRow,
  mode: IncludeSubscribers,
): Promise<RawJson> {
  // Partial lists depend on recent presence and the clock as well: presented each time.
  if (mode === "partial") return encode(app, world, user, mode);
  let byRealm = presented.get(world.channels);
  if (!byRealm) presented.set(world.channels, (byRealm = new WeakMap()));
  let entry = byRealm.get(world.realm);
  if (!entry) byRealm.set(world.realm, (entry = { bytes: 0, lists: new Map() }));
  const key = `${user.id}:${mode}`;
  const cached = entry.lists.get(key);
  if (cached) return cached;
  const json = await encode(app, world, user, mode);
  const size = json.chunks[0]!.length;
  if (entry.bytes + size > MAX_BYTES) {
    entry.lists.clear();
    entry.bytes = 0;
  }
  entry.lists.set(key, json);
  entry.bytes += size;
  return json;
}

async function encode(
  app: App,
  world: ChannelWorld,
  user: UserRow,
  mode: IncludeSubscribers,
): Promise<RawJson> {
  const lists = await gatherSubscriptions(app, app.knex, world, user, mode, false, true);
  return new RawJson([Buffer.from(JSON.stringify(lists.subscriptions))]);
}
