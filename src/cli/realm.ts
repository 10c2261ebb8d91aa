import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import type { RealmSnapshot } from "../world/realm.js";
import { isOwnerRole } from "../world/roles.js";
import { CliError } from "./output.js";

/** The realm an admin command works on, or a clear error if `chatd init` never ran. */
export async function requireRealm(app: App): Promise<RealmSnapshot> {
  const realm = await app.realms.primaryRealm(app.knex);
  if (!realm) throw new CliError(`no realm in ${app.config.data_dir}: run \`chatd init\` first`);
  return realm;
}

/** A user by real or API email, for admin commands (no visibility rules apply). */
export function requireUserByEmail(realm: RealmSnapshot, email: string): UserRow {
  const user = realm.userByEmail(email);
  if (!user) throw new CliError(`no user with email ${email}`);
  return user;
}

/**
 * The user an admin command acts as where the action needs one (channels): the
 * operator acts with an owner's rights, as the realm's first active human owner.
 */
export function requireOperatorOwner(realm: RealmSnapshot): UserRow {
  const owner = [...realm.users].find((u) => bool(u.is_active) && !bool(u.is_bot) && isOwnerRole(u.role));
  if (!owner) throw new CliError("this realm has no active owner");
  return owner;
}
