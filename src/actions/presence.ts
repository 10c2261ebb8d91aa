import type { App } from "../app.js";
import { nowSeconds } from "../clock.js";
import { bool, int, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest, botsNotAllowed } from "../errors.js";
import {
  USER_LIMIT_FOR_PRESENCE_EVENTS,
  invisiblePresence,
  nextPresence,
  type PresenceStatus,
  type PresenceTimes,
} from "../lib/presence.js";
import { activeUserIds } from "../lib/recipients.js";
import { presenceEvent } from "../presenters/events/presence.js";
import type { PresenceEvent } from "../wire/events.js";
import type { RealmSnapshot } from "../world/realm.js";

/**
 * Presence changes go to the in-memory presence store (written to the database in
 * batches), never through a write transaction of their own: clients ping every minute.
 */

/**
 * POST /users/me/presence: records what the user's client reports, unless the user
 * turned presence off (Zulip's invisible mode). Humans only.
 */
export async function updateUserPresence(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  status: string,
): Promise<void> {
  if (bool(user.is_bot)) throw botsNotAllowed();
  if (status !== "active" && status !== "idle") throw badRequest(`Invalid status: ${status}`);
  if (!bool(user.presence_enabled)) return;
  const now = nowSeconds(app.clock);
  await app.presence.realm(realm.id);
  // Most pings only refresh what clients poll for: recorded at once, with no lock. A
  // change worth an event is made under the write lock together with its event, so a
  // /register reading state meanwhile either sees the change or gets the event.
  if (recordPresence(app, realm, user, status, now, false)) return;
  await app.db.exclusive(() => recordPresence(app, realm, user, status, now, true));
}

/**
 * Zulip's do_update_user_presence. Returns false, changing nothing, when the change
 * calls for an event and `mayPublish` is false.
 */
function recordPresence(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  status: PresenceStatus,
  now: number,
  mayPublish: boolean,
): boolean {
  const current = app.presence.get(realm.id, user.id);
  const change = nextPresence(current, status, now);
  const audience =
    change.newsworthy && !bool(realm.realm.presence_disabled) ? presenceAudience(realm, false) : [];
  if (audience.length > 0 && !mayPublish) return false;
  if (change.times) app.presence.set(realm.id, user.id, change.times);
  const times = change.times ?? current;
  if (audience.length > 0 && times) app.db.publish(realm.id, presenceEventOf(app, user, times), audience);
  return true;
}

/**
 * The presence side of turning presence_enabled off or on (POST /users/me/status's
 * `away`, PATCH /settings), as Zulip's do_change_user_setting does it: off records the
 * user as last connected a while before now and never active, so every client shows
 * them offline for as long as it stays off (their pings are ignored); on records them
 * active now. Either way everyone hears of it at once, whatever the realm's size.
 */
export async function doChangePresenceEnabled(
  app: App,
  tx: Tx,
  realm: RealmSnapshot,
  user: UserRow,
  enabled: boolean,
): Promise<void> {
  await app.presence.realm(realm.id);
  const current = app.presence.get(realm.id, user.id);
  const changed = enabled ? nextPresence(current, "active", tx.now).times : invisiblePresence(tx.now);
  const times = changed ?? current;
  if (changed) tx.afterCommit(() => app.presence.set(realm.id, user.id, changed));
  if (times) tx.sendEventOnCommit(realm.id, presenceEventOf(app, user, times), presenceAudience(realm, true));
}

/**
 * Who hears of a user's presence change: every active user (chatd does not limit which
 * users one may see). Above Zulip's USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS active
 * users, nobody unless forced: clients learn of it at their next poll.
 */
function presenceAudience(realm: RealmSnapshot, forced: boolean): number[] {
  const ids = activeUserIds(realm);
  return forced || ids.length <= USER_LIMIT_FOR_PRESENCE_EVENTS ? ids : [];
}

/** The event of a user's new presence, sent now. */
function presenceEventOf(app: App, user: UserRow, times: PresenceTimes): PresenceEvent {
  return presenceEvent(
    { id: user.id, email: user.email, dateJoined: int(user.date_joined) },
    times,
    app.clock.nowMs() / 1000,
  );
}
