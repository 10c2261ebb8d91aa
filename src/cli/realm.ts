import type { App } from "../app.js";
import { emailHost, type Config } from "../config.js";
import { bool, type UserRow } from "../db/rows.js";
import { userIdFromDummyEmail } from "../lib/emails.js";
import type { RealmSnapshot } from "../world/realm.js";
import { isOwnerRole } from "../world/roles.js";
import { noRealm } from "./context.js";
import { CliError } from "./output.js";
import { valueOrAsk, type PromptOptions } from "./prompts.js";

/** The realm an admin command works on, or a clear error if `chatd init` never ran. */
export async function requireRealm(app: App): Promise<RealmSnapshot> {
  const realm = await app.realms.primaryRealm(app.knex);
  if (!realm) throw noRealm(app.config);
  return realm;
}

/**
 * A user by real email, API email or the API-only address user{id}@{host} every user
 * has, for admin commands (no visibility rules apply).
 */
export function requireUserByEmail(config: Config, realm: RealmSnapshot, email: string): UserRow {
  const dummyId = userIdFromDummyEmail(email, emailHost(config));
  const user = realm.userByEmail(email.trim()) ?? (dummyId === null ? undefined : realm.user(dummyId));
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

/** The user --email names; on a TTY without the flag, asks until the answer names one. */
export async function userFromFlagOrAsk(
  opts: PromptOptions,
  config: Config,
  realm: RealmSnapshot,
  email: string | undefined,
): Promise<UserRow> {
  const find = (value: string) => requireUserByEmail(config, realm, value);
  const answer = await valueOrAsk(opts, email, "--email", "User's email", "input", (value) => {
    find(value);
    return value;
  });
  return find(answer);
}
