import { hash } from "node:crypto";
import type { App } from "../app.js";
import type { ApiKeyOwner } from "../cache/realm-cache.js";
import { bool, type UserRow } from "../db/rows.js";
import {
  badRequest,
  csrfFailed,
  invalidApiKey,
  sessionRequired,
  notLoggedIn,
  unauthorized,
  realmDeactivated,
  userDeactivated,
} from "../errors.js";
import { digestsEqual, hasApiKeyFormat, hashApiKey } from "../lib/api-keys.js";
import {
  cookieValue,
  csrfTokenFor,
  hashSessionToken,
  hasSessionTokenFormat,
  secretsEqual,
  sessionAlive,
  SESSION_COOKIE,
  type SessionLifetimes,
} from "../lib/sessions.js";
import type { SessionRecord } from "../cache/session-cache.js";
import type { RealmSnapshot } from "../world/realm.js";
import { dummyEmail } from "../lib/emails.js";
import { emailHost, realmUrl } from "../config.js";
import { nowSeconds } from "../clock.js";
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
 * A Basic credential that authenticated, remembered by its header's digest so the next
 * request skips decoding, hashing the key and matching the email. It holds only while
 * the key index still has the same owner record (a revoked or regenerated key, or a
 * change by another process, reloads the index: events/replication.ts or the
 * data_version watch invalidate it) and the realm snapshot is the same one (a changed
 * email, role or deactivation makes a new snapshot). Deactivation is checked every time.
 */
interface Remembered {
  keyHash: string;
  owner: ApiKeyOwner;
  /** Weak: a credential no longer used must not keep an old snapshot (every user row) alive. */
  realm: WeakRef<RealmSnapshot>;
}

/** Beyond this many credentials the memory starts over (deactivation is checked on every use). */
const MAX_REMEMBERED = 50_000;
const remembered = new WeakMap<App["realms"], Map<string, Remembered>>();

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
  let known = remembered.get(app.realms);
  if (!known) remembered.set(app.realms, (known = new Map<string, Remembered>()));
  // Looked up by digest, as the key index is: the secret itself is never a map key.
  const digest = hash("sha256", header, "base64");
  const seen = known.get(digest);
  if (seen) {
    const owner = await app.realms.apiKeyOwner(app.knex, seen.keyHash);
    const realm = owner === seen.owner ? await app.realms.get(app.knex, owner.realmId) : null;
    const user = realm !== null && realm === seen.realm.deref() ? realm.user(seen.owner.userId) : undefined;
    if (user) return admit(realm!, user, options);
    known.delete(digest);
  }
  const [scheme, encoded] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() !== "basic" || !encoded) {
    throw badRequest("This endpoint requires HTTP basic authentication.");
  }
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw unauthorized("Invalid authorization header for basic auth");
  const email = decoded.slice(0, colon).trim();
  const apiKey = decoded.slice(colon + 1).trim();
  const found = await keyOwner(app, apiKey, email);
  if (known.size >= MAX_REMEMBERED) known.clear();
  known.set(digest, { keyHash: found.keyHash, owner: found.owner, realm: new WeakRef(found.realm) });
  return admit(found.realm, found.realm.user(found.owner.userId)!, options);
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
  const found = await keyOwner(app, rawApiKey, email);
  return admit(found.realm, found.realm.user(found.owner.userId)!, options);
}

/** The key's owner, and their realm holding them; refused unless `email` (if given) is theirs. */
async function keyOwner(
  app: App,
  rawApiKey: string,
  email: string | null,
): Promise<{ keyHash: string; owner: ApiKeyOwner; realm: RealmSnapshot }> {
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
  return { keyHash, owner, realm };
}

/** The checks every request makes, remembered credential or not. */
function admit(realm: RealmSnapshot, user: UserRow, options: AuthenticateOptions): Authenticated {
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

/** Methods that change nothing: no CSRF token needed (as Django's CsrfViewMiddleware). */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** A /json/ request's session: the web client's cookie and, for a change, its CSRF token. */
export interface SessionRequest {
  readonly method: string;
  header(name: string): string;
}

export interface SessionAuthenticated extends Authenticated {
  readonly sessionId: number;
}

/**
 * Session authentication for the web client's /json/ requests, as Zulip's web app: the
 * `sessionid` cookie names a live session; a request that may change something also
 * carries the session's CSRF token in X-CSRFToken and, when the browser says where it
 * comes from, this server's origin.
 */
export async function authenticateSession(
  app: App,
  request: SessionRequest,
  options: AuthenticateOptions = {},
): Promise<SessionAuthenticated> {
  const token = cookieValue(request.header("cookie"), SESSION_COOKIE);
  if (token === undefined || !hasSessionTokenFormat(token)) throw sessionRequired();
  const session = await liveSession(app, token);
  if (!session) throw sessionRequired();
  if (!SAFE_METHODS.has(request.method)) validateCsrf(request, token, publicOrigin(app));
  const realm = await app.realms.get(app.knex, session.realmId);
  const user = realm.user(session.userId);
  if (!user) throw sessionRequired();
  const admitted = admit(realm, user, options);
  app.sessions.touch(session, nowSeconds(app.clock), app.config.session_idle_timeout_secs);
  return { ...admitted, sessionId: session.id };
}

/** The token's session if it is alive; a cached record that looks expired is read once more. */
export async function liveSession(app: App, token: string): Promise<SessionRecord | null> {
  const tokenHash = hashSessionToken(token);
  const now = nowSeconds(app.clock);
  const lifetimes = sessionLifetimes(app);
  let session = await app.sessions.get(app.knex, tokenHash);
  if (session && !sessionAlive(session, lifetimes, now)) {
    // Another process may have seen it used since this one read it.
    app.sessions.forget(tokenHash);
    session = await app.sessions.get(app.knex, tokenHash);
  }
  return session && sessionAlive(session, lifetimes, now) ? session : null;
}

export const sessionLifetimes = (app: App): SessionLifetimes => ({
  idleSecs: app.config.session_idle_timeout_secs,
  maxAgeSecs: app.config.session_max_age_secs,
});

/** The origin of external_url: where the browser is when this server sits behind a proxy. */
export const publicOrigin = (app: App) => new URL(realmUrl(app.config)).origin;

/** Django's CSRF checks, with its reasons (Zulip answers them as CSRF_FAILED). */
export function validateCsrf(request: SessionRequest, sessionToken: string, trustedOrigin: string): void {
  validateSameOrigin(request, trustedOrigin);
  const given = request.header("x-csrftoken");
  if (given === "") throw csrfFailed("CSRF token missing.");
  if (!secretsEqual(given, csrfTokenFor(sessionToken))) throw csrfFailed("CSRF token incorrect.");
}

/**
 * A browser names the page a request comes from (Origin, or Sec-Fetch-Site): a page of
 * another site is refused even before the token is looked at. This server's origin is the
 * host the request was sent to, or `trustedOrigin` (external_url's, which a reverse proxy
 * may not pass on as Host). An opaque origin ("null": a sandboxed frame, a redirect from
 * another site) is not this server's, as in Django. Requests that name no origin (older
 * browsers, scripts) rely on the token alone.
 */
export function validateSameOrigin(request: SessionRequest, trustedOrigin: string): void {
  const origin = request.header("origin");
  if (origin !== "") {
    if (origin !== trustedOrigin && !hostIs(origin, request.header("host"))) {
      throw csrfFailed(`Origin checking failed - ${origin} does not match any trusted origins.`);
    }
    return;
  }
  const site = request.header("sec-fetch-site");
  if (site !== "" && site !== "same-origin" && site !== "none") {
    throw csrfFailed("Cross-site request refused.");
  }
}

/** Whether an Origin header names this Host (any scheme: TLS may end at a proxy). */
function hostIs(origin: string, host: string): boolean {
  if (host === "") return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}
