import type { Readable } from "node:stream";

/**
 * Where uploaded bytes live: uploaded files (by content hash), their thumbnails, avatars
 * and custom emoji. A small key/blob interface so a second implementation (S3-compatible
 * object storage) can replace the local disk; keys are relative, "/"-separated paths
 * such as "files/ab/cdef…" or "avatars/2/<hash>.png".
 */
export interface BlobStore {
  /**
   * Moves a finished temporary file (made under `tempDir()`) to `key`. An existing blob
   * of the same key is kept (keys of uploaded files are content hashes: same bytes).
   */
  putFile(key: string, tempPath: string): Promise<void>;
  /** Writes a small blob (thumbnails, avatars) whole. */
  putBytes(key: string, bytes: Buffer): Promise<void>;
  /** The blob's size and last write, or null when it does not exist. */
  stat(key: string): Promise<BlobInfo | null>;
  /** A stream of the blob's bytes, `start`..`end` inclusive when given. */
  read(key: string, range?: { start: number; end: number }): Readable;
  readBytes(key: string): Promise<Buffer>;
  /** Removes a blob; a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Every blob under a key prefix ("files/"). */
  list(prefix: string): AsyncIterable<BlobEntry>;
  /** A private directory for uploads in progress, on the same device as the blobs. */
  tempDir(): string;
  /**
   * Copies the named blobs into `targetDir` (same relative paths), as hard links where
   * the file system allows: a backup. Returns the keys that no longer exist.
   */
  exportTo(targetDir: string, keys: Iterable<string>): Promise<string[]>;
  /**
   * While a backup copies blobs, nothing may delete them: deletions wait for the next
   * sweep. Returns the function that lets deletions go on again.
   */
  pauseDeletions(): Promise<() => Promise<void>>;
  deletionsPaused(): Promise<boolean>;
  /** Removes temporary files older than the age (uploads that died half-way). */
  deleteStaleTemp(olderThanMs: number): Promise<void>;
}

export interface BlobInfo {
  size: number;
  mtimeMs: number;
}

export interface BlobEntry extends BlobInfo {
  key: string;
}

/** A key must be relative, "/"-separated, without empty, "." or ".." segments. */
export function isSafeKey(key: string): boolean {
  if (key === "" || key.startsWith("/") || key.includes("\\") || key.includes("\0")) return false;
  return key.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}
