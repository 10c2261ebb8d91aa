import type { Knex } from "knex";
import { jsonColumn } from "../../db/rows.js";
import type { BlobStore } from "../storage/index.js";
import type { StoredThumbnail } from "../images.js";
import { emojiBlobKey, stillFileName } from "../realm-emoji.js";
import { blobKeyOf, thumbnailKeyOf } from "./names.js";

/**
 * The stored files a database snapshot names: uploads (by content hash), their
 * thumbnails, avatars and custom emoji. Read from the snapshot itself (attached as `snap`), so the
 * files copied are exactly those the backed-up database refers to.
 */
export async function blobKeysOfSnapshot(knex: Knex, snapshotPath: string): Promise<string[]> {
  await knex.raw("ATTACH DATABASE ? AS snap", [snapshotPath]);
  try {
    const keys = new Set<string>();
    const hashes = await knex.raw<Array<{ sha256: string }>>("SELECT DISTINCT sha256 FROM snap.attachments");
    for (const { sha256 } of hashes) keys.add(blobKeyOf(sha256));
    const images = await knex.raw<Array<{ path_id: string; thumbnail_metadata: string }>>(
      "SELECT a.path_id, i.thumbnail_metadata FROM snap.image_attachments i JOIN snap.attachments a ON a.id = i.attachment_id",
    );
    for (const image of images) {
      for (const t of jsonColumn<StoredThumbnail[]>(image.thumbnail_metadata, [])) {
        const format = `${t.max_width}x${t.max_height}${t.animated ? "-anim" : ""}.${t.extension}`;
        keys.add(thumbnailKeyOf(image.path_id, format));
      }
    }
    const avatars = await knex.raw<Array<{ avatar_file: string }>>(
      "SELECT avatar_file FROM snap.users WHERE avatar_file IS NOT NULL",
    );
    for (const { avatar_file } of avatars) {
      keys.add(`avatars/${avatar_file}.png`);
      keys.add(`avatars/${avatar_file}-medium.png`);
    }
    const emoji = await knex.raw<Array<{ realm_id: number; file_name: string; is_animated: number }>>(
      "SELECT realm_id, file_name, is_animated FROM snap.realm_emoji WHERE file_name IS NOT NULL",
    );
    for (const { realm_id, file_name, is_animated } of emoji) {
      keys.add(emojiBlobKey(realm_id, file_name));
      if (is_animated) keys.add(emojiBlobKey(realm_id, stillFileName(file_name)));
    }
    return [...keys];
  } finally {
    await knex.raw("DETACH DATABASE snap");
  }
}

/**
 * Copies the files a snapshot names into `targetDir` (hard links where possible: stored
 * files are never rewritten in place). Returns the keys that were already gone.
 */
export async function backupBlobs(
  knex: Knex,
  store: BlobStore,
  snapshotPath: string,
  targetDir: string,
): Promise<{ copied: number; missing: string[] }> {
  const keys = await blobKeysOfSnapshot(knex, snapshotPath);
  const missing = await store.exportTo(targetDir, keys);
  return { copied: keys.length - missing.length, missing };
}
