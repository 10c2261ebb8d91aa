import { randomBytes } from "node:crypto";

/**
 * Zulip's sanitize_name: a file name safe in a URL and on any file system. Unicode word
 * characters, ".", "-" and "_" stay; runs of spaces and dashes become one "-".
 */
export function sanitizeFileName(value: string): string {
  const cleaned = value
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}\p{M}_\s.-]/gu, "")
    .trim()
    .replace(/[-\s]+/g, "-");
  if (cleaned === "" || cleaned === "." || cleaned === "..") return "uploaded-file";
  return cleaned.slice(-200);
}

const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

function randomToken(length: number): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (b) => URL_SAFE[b % 64]).join("");
}

/** A new upload's path_id, as Zulip makes them: "<realm_id>/<2 hex>/<24 random>/<name>". */
export function newPathId(realmId: number, fileName: string): string {
  return `${realmId}/${randomBytes(1).toString("hex")}/${randomToken(24)}/${sanitizeFileName(fileName)}`;
}

/** The storage key of an uploaded file's bytes: its SHA-256, fanned out by two characters. */
export const blobKeyOf = (sha256: string) => `files/${sha256.slice(0, 2)}/${sha256}`;

/** The storage key of a thumbnail (Zulip: thumbnail/<path_id>/<format>). */
export const thumbnailKeyOf = (pathId: string, format: string) => `thumbnail/${pathId}/${format}`;
