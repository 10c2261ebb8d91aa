import { randomBytes, timingSafeEqual } from "node:crypto";
import { availableParallelism } from "node:os";
import { rateLimitHit } from "../errors.js";
import { ConcurrencyGate } from "./concurrency-gate.js";
import { PasswordHashPool } from "./password-hash-pool.js";

/** scrypt's cost parameters. Each hash records its own, so changing them breaks no login. */
export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** The cost of every password hash the server writes (16 MiB of memory per hash). */
export const SCRYPT_PARAMS: ScryptParams = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;

/** One hash per two cores runs at a time. */
const HASHES_AT_ONCE = Math.max(1, Math.floor(availableParallelism() / 2));

/**
 * A login flood must not slow what the server serves: one hash per two cores runs at a
 * time (process-wide), a few more wait, and beyond that a login is refused at once with
 * Zulip's 429 (clients retry after `retry-after`).
 */
export const passwordHashGate = new ConcurrencyGate(HASHES_AT_ONCE, 16, () => rateLimitHit(1, {}));

/**
 * Where the hashes run: low-priority worker processes, so hashing takes only the CPU the
 * server leaves idle (in the server's thread pool it took cores from every request). The
 * server's shutdown stops them (server/create-app.ts).
 */
export const passwordHashPool = new PasswordHashPool(HASHES_AT_ONCE);

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  return passwordHashGate.run(() =>
    passwordHashPool.hash({
      password,
      salt: salt.toString("base64"),
      keyLength: KEY_LENGTH,
      N: params.N,
      r: params.r,
      p: params.p,
    }),
  );
}

/**
 * Salted scrypt, encoded as scrypt$N$r$p$salt$hash (base64). `params` is the App's
 * `scrypt`: SCRYPT_PARAMS, except in tests, which build their App with cheap ones.
 */
export async function hashPassword(password: string, params: ScryptParams): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, params);
  return ["scrypt", params.N, params.r, params.p, salt.toString("base64"), key.toString("base64")].join("$");
}

export async function verifyPassword(password: string, encoded: string | null): Promise<boolean> {
  if (!encoded) return false;
  const [scheme, n, r, p, salt, hash] = encoded.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await derive(password, Buffer.from(salt, "base64"), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A readable random password for generated accounts (about 95 bits). */
export function generatePassword(): string {
  return randomBytes(12).toString("base64url");
}

/** chatd's password rule, advertised by /register as password_min_length and password_max_length. */
export const PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 100;

export const isStrongPassword = (password: string) =>
  password.length >= PASSWORD_MIN_LENGTH && password.length <= PASSWORD_MAX_LENGTH;
