import type { Invalidation } from "../db/event-log.js";
import type { ChannelCache } from "./channel-cache.js";
import type { RealmCache } from "./realm-cache.js";
import type { SendRulesCache } from "./send-rules-cache.js";
import type { SessionCache } from "./session-cache.js";
import type { UserStateCache } from "./user-state-cache.js";

/** This process's caches of what commits change (the App's, by the same names). */
export interface ProcessCaches {
  readonly realms: RealmCache;
  readonly sessions: SessionCache;
  readonly channels: ChannelCache;
  readonly userState: UserStateCache;
  readonly sendRules: SendRulesCache;
}

/**
 * What another process committed, or anything at all: another worker died (what it committed
 * but did not pass on may be in any cache), or an admin command committed beside the server.
 */
export function dropAllCaches(caches: ProcessCaches): void {
  caches.realms.invalidateAll();
  caches.sessions.clear();
  caches.channels.invalidateAll();
  caches.userState.clear();
  caches.sendRules.clear();
}

/** Drops the entries another process's commit invalidated, as its event log entry names them. */
export function applyInvalidations(caches: ProcessCaches, invalidations: readonly Invalidation[]): void {
  for (const [cache, realmId] of invalidations) {
    if (cache === "*") dropAllCaches(caches);
    else if (cache === "realms") caches.realms.invalidate(realmId);
    else if (cache === "sessions") caches.sessions.clear();
    else if (cache === "apiKeys") caches.realms.invalidateApiKeys();
    else if (cache === "channels") caches.channels.invalidate(realmId);
  }
}
