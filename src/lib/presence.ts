/**
 * Zulip's presence rules (zerver/actions/presence.py, zerver/lib/presence.py) and the
 * server settings they depend on, with Zulip's default values.
 */

/** How often clients ping (server_presence_ping_interval_seconds). */
export const PRESENCE_PING_INTERVAL_SECS = 60;
/** Older than this, a user shows as offline (server_presence_offline_threshold_seconds). */
export const OFFLINE_THRESHOLD_SECS = 200;
/** A stored time changes only when the new one is at least this much newer. */
const PRESENCE_UPDATE_MIN_FREQ_SECS = 55;
/** Legacy formats call a user active if last active this close to last connected. */
const LEGACY_ACTIVE_OFFSET_SECS = 70;
/** Without a presence_history_limit_days, data older than this is left out. */
export const DEFAULT_PRESENCE_HISTORY_DAYS = 14;
/** Above this many active users, only forced presence changes are sent as events. */
export const USER_LIMIT_FOR_PRESENCE_EVENTS = 100;
/**
 * A user not active for this long who reports "active" came back online: other clients
 * hear of it at once instead of at their next poll.
 */
const BACK_ONLINE_AFTER_SECS = OFFLINE_THRESHOLD_SECS - PRESENCE_PING_INTERVAL_SECS - 10;
/** Zulip's stand-in for "never" when comparing with a missing time. */
const DAY_SECS = 24 * 3600;

export type PresenceStatus = "active" | "idle";

/** A user's stored presence, in UNIX seconds. */
export interface PresenceTimes {
  readonly lastActiveTime: number | null;
  readonly lastConnectedTime: number | null;
}

export interface PresenceChange {
  /** The new times, or null when nothing is stored (a refresh within the minimum interval). */
  readonly times: PresenceTimes | null;
  /** First presence of the user, or back online: worth a presence event. */
  readonly newsworthy: boolean;
}

/** Zulip's do_update_user_presence: what a report of `status` at `logTime` changes. */
export function nextPresence(
  current: PresenceTimes | undefined,
  status: PresenceStatus,
  logTime: number,
): PresenceChange {
  const active = status === "active";
  if (!current) {
    return {
      times: { lastActiveTime: active ? logTime : null, lastConnectedTime: logTime },
      newsworthy: true,
    };
  }
  const sinceActive = current.lastActiveTime === null ? DAY_SECS : logTime - current.lastActiveTime;
  const sinceConnected = current.lastConnectedTime === null ? DAY_SECS : logTime - current.lastConnectedTime;
  let { lastActiveTime, lastConnectedTime } = current;
  let changed = false;
  if (sinceConnected > PRESENCE_UPDATE_MIN_FREQ_SECS) {
    lastConnectedTime = logTime;
    changed = true;
  }
  if (active && sinceActive > PRESENCE_UPDATE_MIN_FREQ_SECS) {
    lastActiveTime = logTime;
    changed = true;
    // last_connected_time is never older than last_active_time.
    if (lastConnectedTime === null || logTime > lastConnectedTime) lastConnectedTime = logTime;
  }
  return {
    times: changed ? { lastActiveTime, lastConnectedTime } : null,
    newsworthy: active && sinceActive > BACK_ONLINE_AFTER_SECS,
  };
}

/**
 * The presence Zulip records when a user turns presence_enabled off: connected a little
 * more than the offline threshold ago, never active, so every client shows them offline.
 */
export function invisiblePresence(now: number): PresenceTimes {
  return { lastActiveTime: null, lastConnectedTime: now - OFFLINE_THRESHOLD_SECS - 120 };
}

/** Both times, a missing one replaced by the date the user joined (as Zulip reports them). */
export function presenceTimestamps(
  times: PresenceTimes,
  dateJoined: number,
): { active: number; connected: number } {
  return { active: times.lastActiveTime ?? dateJoined, connected: times.lastConnectedTime ?? dateJoined };
}

/** The legacy formats' single status: active if active shortly before last connecting. */
export function legacyStatus(
  active: number,
  connected: number,
): { status: PresenceStatus; timestamp: number } {
  return active + LEGACY_ACTIVE_OFFSET_SECS >= connected
    ? { status: "active", timestamp: active }
    : { status: "idle", timestamp: connected };
}
