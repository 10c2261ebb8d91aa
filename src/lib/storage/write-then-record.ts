import type { BlobStore } from "./index.js";

/**
 * Writes files, then runs `record` (the transaction whose rows name them), so no file
 * write holds the write lock. Keys must be new (unique names): if `record` fails, the
 * files nothing refers to are deleted again, and its error is what the caller gets.
 */
export async function writeBlobsThenRecord<T>(
  store: BlobStore,
  blobs: ReadonlyArray<readonly [key: string, bytes: Buffer]>,
  record: () => Promise<T>,
): Promise<T> {
  const written: string[] = [];
  try {
    for (const [key, bytes] of blobs) {
      await store.putBytes(key, bytes);
      written.push(key);
    }
    return await record();
  } catch (err) {
    for (const key of written) await store.delete(key).catch(() => undefined);
    throw err;
  }
}
