import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { availableParallelism } from "node:os";
import { rateLimitHit } from "../errors.js";
import { ConcurrencyGate } from "./concurrency-gate.js";

/** scrypt's cost parameters. Each hash records its own, so changing them breaks no login. */
export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** The cost of every password hash the server writes (16 MiB of memory per hash). */
export const SCRYPT_PARAMS: ScryptParams = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;

/**
 * scrypt runs on libuv's thread pool (4 threads), as do the sqlite3 driver's queries: a
 * login flood would hold every thread and starve the database. So one hash per two cores
 * runs at a time (process-wide, like the pool), a few more wait, and beyond that a login
 * is refused at once with Zulip's 429 (clients retry after `retry-after`).
 */
export const passwordHashGate = new ConcurrencyGate(
  Math.max(1, Math.floor(availableParallelism() / 2)),
  16,
  () => rateLimitHit(1, {}),
);

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return passwordHashGate.run(() => scryptKey(password, salt, options));
}

function scryptKey(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize("NFKC"),
      salt,
      KEY_LENGTH,
      { ...options, maxmem: 64 * 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
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
