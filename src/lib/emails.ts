import { createRequire } from "node:module";
import { isWellFormed } from "../params.js";

// Only the email check, not the whole validator library (memory at start-up).
const isEmail = (
  createRequire(import.meta.url)("validator/lib/isEmail.js") as { default: (s: string, o: object) => boolean }
).default;

/** The API-only address every user has: user{id}@{host}. */
export const dummyEmail = (userId: number, host: string) => `user${userId}@${host}`;

/** Parses a dummy address back to a user ID, if it is one for this host. */
export function userIdFromDummyEmail(email: string, host: string): number | null {
  const match = /^user(\d+)@(.+)$/i.exec(email.trim());
  if (!match || match[2]!.toLowerCase() !== host.toLowerCase()) return null;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) ? id : null;
}

/**
 * Email syntax, by the `validator` package's RFC 5322-based check. Its byte-length check
 * throws URIError on a lone surrogate; the parameter layer refuses those first, and here
 * such an address is simply not one (for callers that are not requests: the CLI).
 */
export const isValidEmail = (email: string) =>
  isWellFormed(email) && isEmail(email, { allow_utf8_local_part: true });
