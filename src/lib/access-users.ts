import { emailHost, type Config } from "../config.js";
import type { UserRow } from "../db/rows.js";
import { noSuchUser } from "../errors.js";
import type { RealmSnapshot } from "../world/realm.js";
import { userIdFromDummyEmail } from "./emails.js";
import { canSeeDeliveryEmail } from "../permissions/email-visibility.js";

/** A user of the realm by ID, deactivated users and bots included; else "No such user". */
export function accessUserById(realm: RealmSnapshot, userId: number): UserRow {
  const target = realm.user(userId);
  if (!target) throw noSuchUser();
  return target;
}

/**
 * A user by real email (only if the viewer may see it: hidden and missing look the
 * same) or by the dummy address user{id}@{host}, which works for everyone.
 */
export function accessUserByEmail(
  config: Config,
  realm: RealmSnapshot,
  viewer: UserRow,
  email: string,
): UserRow {
  const dummyId = userIdFromDummyEmail(email, emailHost(config));
  if (dummyId !== null) return accessUserById(realm, dummyId);
  const target = realm.userByEmail(email.trim());
  if (!target || target.delivery_email.toLowerCase() !== email.trim().toLowerCase()) throw noSuchUser();
  if (!canSeeDeliveryEmail(viewer, target)) throw noSuchUser();
  return target;
}

/** A path segment that is either a user ID or an email address. */
export function accessUserByIdOrEmail(
  config: Config,
  realm: RealmSnapshot,
  viewer: UserRow,
  key: string,
): UserRow {
  if (/^\d+$/.test(key)) return accessUserById(realm, Number(key));
  return accessUserByEmail(config, realm, viewer, key);
}
