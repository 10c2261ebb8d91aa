import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";

/**
 * The data directory holds password hashes, API key hashes and every message: chatd
 * keeps it and each file it writes private to its user, whatever the umask.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates the directory (and missing parents) private; an existing one is left as it is. */
export function ensurePrivateDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (created !== undefined) chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * Makes the file private: creates it empty first if `create` (an empty file is a valid
 * empty SQLite database), else only fixes an existing one. A file owned by another user
 * (an operator running a command as root, say) is left alone.
 */
export function preparePrivateFile(path: string, create: boolean): void {
  if (create && !existsSync(path)) closeSync(openSync(path, "a", PRIVATE_FILE_MODE));
  try {
    chmodSync(path, PRIVATE_FILE_MODE);
  } catch {
    // missing (not created), or not ours to change
  }
}
