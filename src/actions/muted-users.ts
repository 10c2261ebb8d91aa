import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { accessUserById } from "../lib/access-users.js";
import { mutedUsersOf } from "../lib/muted-users.js";
import { mutedUsersEvent } from "../presenters/events/user-data.js";
import type { RealmSnapshot } from "../world/realm.js";
import { doMarkAsRead } from "./message-flags.js";

/**
 * Muting a user (Zulip's do_mute_user): their unread messages become read at once, and
 * their new ones arrive read (actions/message-prepare.ts); clients hide the rest. Bots
 * and deactivated users may be muted too.
 */
export async function checkMuteUser(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  mutedUserId: number,
): Promise<void> {
  if (mutedUserId === user.id) throw badRequest("Cannot mute self");
  const target = accessUserById(realm, mutedUserId);
  await app.db.transaction(async (tx) => {
    const known = await tx
      .knex("muted_users")
      .where({ user_id: user.id, muted_user_id: target.id })
      .first<{ user_id: number } | undefined>("user_id");
    if (known) throw badRequest("User already muted");
    await tx.knex("muted_users").insert({ user_id: user.id, muted_user_id: target.id, date_muted: tx.now });
    await doMarkAsRead(tx, user, { kind: "sender", senderId: target.id });
    tx.sendEventOnCommit(user.realm_id, mutedUsersEvent(await mutedUsersOf(tx.knex, user.id)), [user.id]);
  });
}

/** Unmuting leaves what muting marked read as it is, as Zulip does. */
export async function checkUnmuteUser(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  mutedUserId: number,
): Promise<void> {
  const target = accessUserById(realm, mutedUserId);
  await app.db.transaction(async (tx) => {
    const removed = await tx
      .knex("muted_users")
      .where({ user_id: user.id, muted_user_id: target.id })
      .delete();
    if (removed === 0) throw badRequest("User is not muted");
    tx.sendEventOnCommit(user.realm_id, mutedUsersEvent(await mutedUsersOf(tx.knex, user.id)), [user.id]);
  });
}
