import { createHash, randomBytes } from "node:crypto";

/**
 * Bearer tokens (web sessions, confirmation links): 32 random bytes, base64url (43
 * characters). Only their SHA-256 is stored, as for API keys; a fast hash suffices for 256
 * random bits.
 */
export const generateSecretToken = () => randomBytes(32).toString("base64url");

export const hasSecretTokenFormat = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);

export const hashSecretToken = (token: string) => createHash("sha256").update(token).digest("hex");
