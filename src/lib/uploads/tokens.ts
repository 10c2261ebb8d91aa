import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Temporary URLs for a file (Zulip's generate_unauthed_file_access_url): a token that
 * names the file and an expiry, signed with the server's key, hex-encoded like Zulip's
 * (base16), valid for SIGNED_ACCESS_TOKEN_VALIDITY_SECS.
 */

/** Zulip's SIGNED_ACCESS_TOKEN_VALIDITY_IN_SECONDS. */
export const SIGNED_ACCESS_TOKEN_VALIDITY_SECS = 60;

const sign = (key: string, payload: string) => createHmac("sha256", key).update(payload).digest("base64url");

export function makeFileToken(key: string, pathId: string, nowSecs: number): string {
  const payload = `${pathId}:${nowSecs + SIGNED_ACCESS_TOKEN_VALIDITY_SECS}`;
  return Buffer.from(`${payload}:${sign(key, payload)}`, "utf8")
    .toString("hex")
    .toUpperCase();
}

/** The path_id a token names, or null if it is forged, malformed or expired. */
export function pathIdFromToken(key: string, token: string, nowSecs: number): string | null {
  if (!/^(?:[0-9A-F]{2})+$/.test(token)) return null;
  const text = Buffer.from(token, "hex").toString("utf8");
  const sigAt = text.lastIndexOf(":");
  if (sigAt < 0) return null;
  const payload = text.slice(0, sigAt);
  const given = Buffer.from(text.slice(sigAt + 1));
  const expected = Buffer.from(sign(key, payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const expiryAt = payload.lastIndexOf(":");
  const expires = Number(payload.slice(expiryAt + 1));
  if (expiryAt < 0 || !Number.isInteger(expires) || nowSecs > expires) return null;
  return payload.slice(0, expiryAt);
}

/** The URL of a temporary link (relative to the server). */
export function temporaryFileUrl(key: string, pathId: string, nowSecs: number): string {
  const fileName = pathId.slice(pathId.lastIndexOf("/") + 1);
  return `/user_uploads/temporary/${makeFileToken(key, pathId, nowSecs)}/${encodeURIComponent(fileName)}`;
}
