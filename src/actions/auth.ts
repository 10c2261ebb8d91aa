import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import { JsonableError, realmDeactivated, userDeactivated } from "../errors.js";
import { verifyPassword } from "../lib/passwords.js";
import { doIssueApiKey, doRevokeApiKeys } from "./api-keys.js";

const authenticationFailed = () =>
  new JsonableError("Your username or password is incorrect", "AUTHENTICATION_FAILED", 401);

export interface IssuedKey {
  api_key: string;
  email: string;
  user_id: number;
}

/**
 * POST /fetch_api_key: checks a username (real email) and password, then issues a new
 * key for this client, leaving the user's other clients logged in.
 */
export async function checkFetchApiKey(
  app: App,
  username: string,
  password: string,
  label: string,
): Promise<IssuedKey> {
  const user = await authenticateByPassword(app, username, password);
  const apiKey = await app.db.transaction((tx) => doIssueApiKey(app, tx, user.id, label));
  return { api_key: apiKey, email: user.email, user_id: user.id };
}

/**
 * The active user whose real email and password these are, for every password login (an
 * API key, a web session). Zulip's authenticate_by_username: every attempt counts against
 * the username; a success clears the count.
 */
export async function authenticateByPassword(app: App, username: string, password: string): Promise<UserRow> {
  const limitKey = username.trim().toLowerCase();
  app.rateLimits.enforce("authenticate_by_username", limitKey);
  let realm = await app.realms.primaryRealm(app.knex);
  let user = realm?.userByEmail(username.trim());
  if (realm && (await cachedUserIsStale(app, realm.id, username.trim(), user))) {
    // An admin command just created the user or set the password; the server's cache
    // learns of it within external_change_poll_ms, but a login must not wait for that.
    app.realms.invalidate(realm.id);
    realm = await app.realms.primaryRealm(app.knex);
    user = realm?.userByEmail(username.trim());
  }
  // Verify even for unknown users, so timing does not reveal which emails exist.
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!realm || !user || !ok || user.delivery_email.toLowerCase() !== username.trim().toLowerCase()) {
    throw authenticationFailed();
  }
  app.rateLimits.clear("authenticate_by_username", limitKey);
  if (bool(realm.realm.deactivated)) throw realmDeactivated();
  if (!bool(user.is_active)) throw userDeactivated();
  return user;
}

/** Whether the database holds another password (or a user at all) than the cache for this email. */
async function cachedUserIsStale(
  app: App,
  realmId: number,
  email: string,
  cached: UserRow | undefined,
): Promise<boolean> {
  const row: Pick<UserRow, "password_hash"> | undefined = await app
    .knex<UserRow>("users")
    .where({ realm_id: realmId })
    .whereRaw("lower(delivery_email) = ?", [email.toLowerCase()])
    .first("password_hash");
  return row !== undefined && row.password_hash !== cached?.password_hash;
}

/** Revokes all of the user's keys and issues one new key. */
export async function checkRegenerateApiKey(app: App, user: UserRow, label: string): Promise<string> {
  return app.db.transaction(async (tx) => {
    await doRevokeApiKeys(app, tx, user.id);
    return doIssueApiKey(app, tx, user.id, label);
  });
}

// A well-formed hash of a random password nobody knows.
const DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
