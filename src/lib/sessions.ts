import { createHash, timingSafeEqual } from "node:crypto";

/** The session cookie's name, as Zulip's (Django's) web app. */
export const SESSION_COOKIE = "sessionid";

/** Session tokens are secret tokens (lib/secret-tokens.ts), stored as their SHA-256. */
export {
  generateSecretToken as generateSessionToken,
  hasSecretTokenFormat as hasSessionTokenFormat,
  hashSecretToken as hashSessionToken,
} from "./secret-tokens.js";

/**
 * The session's CSRF token, sent back by the page in X-CSRFToken: derived from the session
 * token (so no other session's CSRF token fits), one-way (the page never sees the cookie's
 * value) and distinct from the stored hash.
 */
export const csrfTokenFor = (token: string) =>
  createHash("sha256").update("chatd-csrf\0").update(token).digest("base64url");

/** Constant-time comparison of two strings of any length. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A cookie's value from a Cookie header, or undefined. */
export function cookieValue(header: string, name: string): string | undefined {
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq >= 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export interface SessionLifetimes {
  /** Seconds without a request after which a session ends. */
  readonly idleSecs: number;
  /** Seconds after login after which a session ends, however active. */
  readonly maxAgeSecs: number;
}

/** Whether a session with these times is still alive at `now` (UNIX seconds). */
export function sessionAlive(
  session: { readonly createdAt: number; readonly lastActiveAt: number },
  lifetimes: SessionLifetimes,
  now: number,
): boolean {
  return now - session.lastActiveAt < lifetimes.idleSecs && now - session.createdAt < lifetimes.maxAgeSecs;
}

/**
 * The Set-Cookie value of a session: HttpOnly (no script reads it), SameSite=Lax (no other
 * site's request carries it, but a link to this server still opens the app), Secure when
 * the server's public URL is https. An empty token with no lifetime removes it.
 */
export function sessionCookie(token: string, options: { secure: boolean; maxAgeSecs: number }): string {
  const secure = options.secure ? "; Secure" : "";
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${options.maxAgeSecs}; HttpOnly; SameSite=Lax${secure}`;
}
