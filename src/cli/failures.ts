import { databaseFailure, isBusyError } from "../logger.js";
import { CliFailure } from "./output.js";

/** Node's system errors in words (the raw message also names the syscall and path). */
const SYSTEM_MEANINGS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOENT: "no such file or directory",
  ENOTDIR: "a path component is not a directory",
  ENOSPC: "disk full",
  EADDRINUSE: "address already in use",
  EADDRNOTAVAIL: "address not available on this machine",
};

/** A Node system error's meaning ("permission denied"), or undefined for other errors. */
export function systemFailure(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !/^E[A-Z]+$/.test(code)) return undefined;
  return SYSTEM_MEANINGS[code] ?? code;
}

/**
 * A database or file-system error, wrapped into one line that names the operation
 * ("database busy while creating a user; try again"); other errors pass unchanged.
 */
export function failureWhile(doing: string, err: unknown): unknown {
  if (isBusyError(err)) {
    return new CliFailure(`database busy while ${doing}: the server kept it locked; try again`, {
      cause: err,
    });
  }
  const meaning = databaseFailure(err) ?? systemFailure(err);
  return meaning === undefined ? err : new CliFailure(`${meaning} while ${doing}`, { cause: err });
}
