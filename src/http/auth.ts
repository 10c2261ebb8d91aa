import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import {
  badRequest,
  invalidApiKey,
  notLoggedIn,
  unauthorized,
  realmDeactivated,
  userDeactivated,
} from "../errors.js";
import { digestsEqual, hasApiKeyFormat, hashApiKey } from "../lib/api-keys.js";
import type { RealmSnapshot } from "../world/realm.js";
import { dummyEmail } from "../lib/emails.js";
import { emailHost } from "../config.js";
import { isIncomingWebhookBot } from "../world/bots.js";

export interface Authenticated {
  user: UserRow;
  realm: RealmSnapshot;
}

export interface AuthenticateOptions {
  /** Incoming-webhook bots' keys work only where this is set (sending messages). */
  allowIncomingWebhookBots?: boolean;
}

export const notForIncomingWebhookBots = () =>
  badRequest("This API is not available to incoming webhook bots.");

/**
 * HTTP Basic authentication: username is the user's API email (or real or dummy email),
 * password an API key. Served from the realm cache: no query on the hot path.
 */
export async function authenticate(
  app: App,
  header: string | undefined,
  options: AuthenticateOptions = {},
): Promise<Authenticated> {
  if (!header) throw notLoggedIn();
  const [scheme, encoded] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() !== "basic" || !encoded) {
    throw badRequest("This endpoint requires HTTP basic authentication.");
  }
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw unauthorized("Invalid authorization header for basic auth");
  const email = decoded.slice(0, colon).trim();
  const apiKey = decoded.slice(colon + 1).trim();
  return authenticateApiKey(app, apiKey, email, options);
}

/**
 * An API key's active user, and their realm; with `email`, the key must be that user's
 * (Basic auth). Incoming-webhook URLs pass the key alone, as Zulip's `api_key` parameter.
 */
export async function authenticateApiKey(
  app: App,
  rawApiKey: string,
  email: string | null,
  options: AuthenticateOptions = {},
): Promise<Authenticated> {
  const apiKey = rawApiKey.trim();
  if (!hasApiKeyFormat(apiKey)) throw invalidApiKey("Malformed API key");

  const keyHash = hashApiKey(apiKey);
  const owner = await app.realms.apiKeyOwner(app.knex, keyHash);
  // The lookup is by digest of a high-entropy key; the final check is constant-time anyway.
  if (!owner || !digestsEqual(owner.keyHash, keyHash)) throw invalidApiKey();
  let realm = await app.realms.get(app.knex, owner.realmId);
  let user = realm.user(owner.userId);
  if (!user) {
    // The key is valid, so the user exists: an admin command created them after the
    // cache was filled (it learns of that within external_change_poll_ms).
    app.realms.invalidate(owner.realmId);
    realm = await app.realms.get(app.knex, owner.realmId);
    user = realm.user(owner.userId);
  }
  if (!user || (email !== null && !emailMatches(app, user, email))) throw invalidApiKey();
  if (bool(realm.realm.deactivated)) throw realmDeactivated();
  if (!bool(user.is_active)) throw userDeactivated();
  if (isIncomingWebhookBot(user) && !options.allowIncomingWebhookBots) throw notForIncomingWebhookBots();
  return { user, realm };
}

function emailMatches(app: App, user: UserRow, email: string): boolean {
  const given = email.toLowerCase();
  return (
    given === user.email.toLowerCase() ||
    given === user.delivery_email.toLowerCase() ||
    given === dummyEmail(user.id, emailHost(app.config)).toLowerCase()
  );
}
