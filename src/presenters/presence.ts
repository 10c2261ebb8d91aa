import type { WireLegacyClientPresence, WireModernPresence } from "../wire/records.js";
import { legacyStatus, presenceTimestamps, type PresenceTimes } from "../lib/presence.js";

/**
 * Presence in Zulip's two wire formats. Modern: {active_timestamp, idle_timestamp}.
 * Legacy (clients that predate it): per client, though Zulip stopped recording clients
 * at feature level 178, so always one "website" entry, plus "aggregated" where asked.
 */

export function presentModernPresence(times: PresenceTimes, dateJoined: number): WireModernPresence {
  const { active, connected } = presenceTimestamps(times, dateJoined);
  return { active_timestamp: active, idle_timestamp: connected };
}

export function presentLegacyClientPresence(
  times: PresenceTimes,
  dateJoined: number,
): WireLegacyClientPresence {
  const { active, connected } = presenceTimestamps(times, dateJoined);
  return { client: "website", ...legacyStatus(active, connected), pushable: false };
}

/** The legacy entry of presences maps: the "website" client and "aggregated" (the same data). */
export function presentLegacyPresence(
  times: PresenceTimes,
  dateJoined: number,
): { aggregated: Omit<WireLegacyClientPresence, "pushable">; website: WireLegacyClientPresence } {
  const website = presentLegacyClientPresence(times, dateJoined);
  return {
    aggregated: { client: website.client, status: website.status, timestamp: website.timestamp },
    website,
  };
}
