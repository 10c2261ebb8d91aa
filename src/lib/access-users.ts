import { emailHost, type Config } from "../config.js";
import { bool, type UserRow } from "../db/rows.js";
import { badRequest, noSuchUser } from "../errors.js";
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
 * The user an email from a caller's input names, for `viewer`: the dummy address
 * user{id}@{host} or the API email (both shown to everyone), or the real email only
 * where the viewer may see it. A hidden real email is answered exactly as an address
 * nobody has (undefined), so lookups are no oracle for who has which address. Every
 * API lookup of a user by email goes through this one rule (Zulip's access_user_by_email).
 */
export function userByVisibleEmail(
  config: Config,
  realm: RealmSnapshot,
  viewer: UserRow,
  email: string,
): UserRow | undefined {
  const key = email.trim().toLowerCase();
  const dummyId = userIdFromDummyEmail(key, emailHost(config));
  if (dummyId !== null) return realm.user(dummyId);
  const target = realm.userByEmail(key);
  if (!target) return undefined;
  if (target.email.toLowerCase() === key) return target;
  return target.delivery_email.toLowerCase() === key && canSeeDeliveryEmail(viewer, target)
    ? target
    : undefined;
}

/** As userByVisibleEmail, system bots too (Zulip's get_user_including_cross_realm). */
export function userOrSystemBotByVisibleEmail(
  config: Config,
  realm: RealmSnapshot,
  viewer: UserRow,
  email: string,
): UserRow | undefined {
  const key = email.trim().toLowerCase();
  return (
    realm.systemBots.find((bot) => bot.email.toLowerCase() === key) ??
    userByVisibleEmail(config, realm, viewer, email)
  );
}

/** userByVisibleEmail, or "No such user" (hidden and missing alike). */
export function accessUserByEmail(
  config: Config,
  realm: RealmSnapshot,
  viewer: UserRow,
  email: string,
): UserRow {
  const target = userByVisibleEmail(config, realm, viewer, email);
  if (!target) throw noSuchUser();
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

/** A user named by ID or by email, as subscribe's `principals` and create's `subscribers` do. */
export type Principal = number | string;

/**
 * Users named by ID or by an email the actor may see (Zulip's
 * bulk_principals_to_user_profiles): every one must exist ("No such user", also for a
 * hidden real email), then be active ("User is deactivated"). Bots are fine.
 */
export function resolvePrincipals(
  config: Config,
  realm: RealmSnapshot,
  actor: UserRow,
  principals: readonly Principal[],
): UserRow[] {
  const users = principals.map((principal) =>
    typeof principal === "number"
      ? realm.user(principal)
      : userByVisibleEmail(config, realm, actor, principal),
  );
  if (users.some((u) => u === undefined)) throw badRequest("No such user");
  const unique = [...new Map(users.map((u) => [u!.id, u!])).values()];
  if (unique.some((u) => !bool(u.is_active))) throw badRequest("User is deactivated");
  return unique;
}
