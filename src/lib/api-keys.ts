import { createHash, randomInt, timingSafeEqual } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const API_KEY_LENGTH = 32;

/** A new API key: 32 uniformly random alphanumerics (~190 bits). */
export function generateApiKey(): string {
  let key = "";
  for (let i = 0; i < API_KEY_LENGTH; i++) key += ALPHABET[randomInt(ALPHABET.length)];
  return key;
}

export const hasApiKeyFormat = (key: string) => /^[A-Za-z0-9]{32}$/.test(key);

/**
 * Keys are stored only as SHA-256: with this much entropy a slow hash adds nothing,
 * and a fast one keeps authentication off the hot path's budget.
 */
export const hashApiKey = (key: string) => createHash("sha256").update(key).digest("hex");

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
