/**
 * The tokens of confirmation links (invitations, sign-up, password reset, email change)
 * are secret tokens (lib/secret-tokens.ts), stored as their SHA-256.
 */
export {
  generateSecretToken as generateConfirmationToken,
  hasSecretTokenFormat as hasConfirmationTokenFormat,
  hashSecretToken as hashConfirmationToken,
} from "./secret-tokens.js";

/** What a confirmation link is for; each kind has its own page and lifetime. */
export type ConfirmationKind =
  "invitation" | "multiuse_invitation" | "registration" | "password_reset" | "email_change";

/** Where a confirmation link stands when it is followed; only `valid` may be acted on. */
export type ConfirmationState = "valid" | "used" | "expired" | "revoked" | "unknown";
