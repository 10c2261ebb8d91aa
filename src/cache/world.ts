import type { Knex } from "knex";
import type { ChannelWorld } from "../permissions/channel-access.js";
import type { RealmSnapshot } from "../world/realm.js";
import type { ChannelCache } from "./channel-cache.js";
import type { RealmCache } from "./realm-cache.js";

/** The caches a world is read from (the App holds both). */
export interface WorldCaches {
  readonly realms: RealmCache;
  readonly channels: ChannelCache;
}

/**
 * The realm and its channels: what every access rule reads. Inside a transaction pass
 * its knex (see ChannelCache.get). A realm snapshot the caller already holds is used
 * as it is; a realm ID loads it through `knex` too.
 */
export async function loadWorld(
  caches: WorldCaches,
  knex: Knex,
  realm: RealmSnapshot | number,
): Promise<ChannelWorld> {
  const snapshot = typeof realm === "number" ? await caches.realms.get(knex, realm) : realm;
  return { realm: snapshot, channels: await caches.channels.get(knex, snapshot.id) };
}
