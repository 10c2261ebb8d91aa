import { createReadStream } from "node:fs";
import {
  chmod,
  copyFile,
  link,
  mkdir,
  readFile,
  readdir,
  rename,
  rm,
  stat,
  unlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import type { Readable } from "node:stream";
import { randomBytes } from "node:crypto";
import { isSafeKey, type BlobEntry, type BlobInfo, type BlobStore } from "./index.js";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, ensurePrivateDir } from "../../db/private-files.js";

const STALE_LOCK_MS = 24 * 3600 * 1000;

/** Blobs as files under one directory (<data_dir>/uploads), private to chatd's user. */
export class LocalBlobStore implements BlobStore {
  private readonly temp: string;

  constructor(private readonly root: string) {
    this.temp = join(root, "tmp");
    ensurePrivateDir(root);
    ensurePrivateDir(this.temp);
  }

  private path(key: string): string {
    if (!isSafeKey(key) || key.startsWith("tmp/")) throw new Error("invalid storage key");
    return join(this.root, ...key.split("/"));
  }

  private async ensureParent(path: string): Promise<void> {
    await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  }

  tempDir(): string {
    return this.temp;
  }

  async putFile(key: string, tempPath: string): Promise<void> {
    const target = this.path(key);
    await this.ensureParent(target);
    await chmod(tempPath, PRIVATE_FILE_MODE);
    if (await exists(target)) {
      // Same bytes already stored: touched, so the orphan sweep gives it its grace period again.
      const now = new Date();
      await utimes(target, now, now);
      await unlink(tempPath);
      return;
    }
    await rename(tempPath, target);
  }

  async putBytes(key: string, bytes: Buffer): Promise<void> {
    const target = this.path(key);
    await this.ensureParent(target);
    // Written beside the target, then renamed: a reader never sees half a file.
    const partial = join(this.temp, `put-${randomBytes(8).toString("hex")}`);
    await writeFile(partial, bytes, { mode: PRIVATE_FILE_MODE });
    await rename(partial, target);
  }

  async stat(key: string): Promise<BlobInfo | null> {
    try {
      const info = await stat(this.path(key));
      return info.isFile() ? { size: info.size, mtimeMs: info.mtimeMs } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.path(key), range);
  }

  readBytes(key: string): Promise<Buffer> {
    return readFile(this.path(key));
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async *list(prefix: string): AsyncIterable<BlobEntry> {
    const start = join(this.root, ...prefix.split("/").filter((p) => p !== ""));
    for await (const path of walk(start)) {
      const info = await stat(path).catch(() => null);
      if (!info?.isFile()) continue;
      yield { key: relative(this.root, path).split(sep).join("/"), size: info.size, mtimeMs: info.mtimeMs };
    }
  }

  private get lockPath(): string {
    return join(this.root, "backup.lock");
  }

  async pauseDeletions(): Promise<() => Promise<void>> {
    await writeFile(this.lockPath, `${process.pid} ${Date.now()}\n`, { mode: PRIVATE_FILE_MODE });
    return () => rm(this.lockPath, { force: true });
  }

  async deletionsPaused(): Promise<boolean> {
    const info = await stat(this.lockPath).catch(() => null);
    // A lock left by a backup that died is ignored after a day.
    return info !== null && Date.now() - info.mtimeMs < STALE_LOCK_MS;
  }

  async deleteStaleTemp(olderThanMs: number): Promise<void> {
    for await (const path of walk(this.temp)) {
      const info = await stat(path).catch(() => null);
      if (info && Date.now() - info.mtimeMs > olderThanMs) await rm(path, { force: true });
    }
  }

  async exportTo(targetDir: string, keys: Iterable<string>): Promise<string[]> {
    const missing: string[] = [];
    for (const key of keys) {
      const source = this.path(key);
      const target = join(targetDir, ...key.split("/"));
      await mkdir(dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE });
      try {
        await link(source, target);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOENT") missing.push(key);
        else if (code === "EEXIST") continue;
        // Another file system, or links not allowed: a copy.
        else
          await copyFile(source, target).catch((copyErr: NodeJS.ErrnoException) => {
            if (copyErr.code === "ENOENT") missing.push(key);
            else throw copyErr;
          });
      }
    }
    return missing;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function* walk(dir: string): AsyncIterable<string> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}
