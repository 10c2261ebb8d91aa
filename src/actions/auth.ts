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
  // Zulip's authenticate_by_username: every attempt counts; a success clears the count.
  const limitKey = username.trim().toLowerCase();
  app.rateLimits.enforce("authenticate_by_username", limitKey);
  const realm = await app.realms.primaryRealm(app.knex);
  const user = realm?.userByEmail(username.trim());
  // Verify even for unknown users, so timing does not reveal which emails exist.
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!realm || !user || !ok || user.delivery_email.toLowerCase() !== username.trim().toLowerCase()) {
    throw authenticationFailed();
  }
  app.rateLimits.clear("authenticate_by_username", limitKey);
  if (bool(realm.realm.deactivated)) throw realmDeactivated();
  if (!bool(user.is_active)) throw userDeactivated();
  const apiKey = await app.db.transaction((tx) => doIssueApiKey(app, tx, user.id, label));
  return { api_key: apiKey, email: user.email, user_id: user.id };
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
