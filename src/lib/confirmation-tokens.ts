import { createHash, randomBytes } from "node:crypto";

/**
 * The tokens of confirmation links (invitations, sign-up, password reset, email change):
 * 32 random bytes, base64url (43 characters). Only their SHA-256 is stored, as for API
 * keys and sessions; a fast hash suffices for 256 random bits.
 */
export const generateConfirmationToken = () => randomBytes(32).toString("base64url");

export const hasConfirmationTokenFormat = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);

export const hashConfirmationToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** What a confirmation link is for; each kind has its own page and lifetime. */
export type ConfirmationKind =
  "invitation" | "multiuse_invitation" | "registration" | "password_reset" | "email_change";

/** Where a confirmation link stands when it is followed; only `valid` may be acted on. */
export type ConfirmationState = "valid" | "used" | "expired" | "revoked" | "unknown";
