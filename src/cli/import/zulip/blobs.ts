import { createHash, randomUUID } from "node:crypto";
import { createReadStream, existsSync, lstatSync, realpathSync } from "node:fs";
import { copyFile, readFile, stat } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import type { BlobStore } from "../../../lib/storage/index.js";
import { blobKeyOf } from "../../../lib/uploads/names.js";
import { emojiBlobKey } from "../../../lib/realm-emoji.js";
import { DEFAULT_AVATAR_SIZE, MEDIUM_AVATAR_SIZE, resizeAvatar } from "../../../lib/images.js";
import { parseExportJson, table, type ZulipRecord } from "./export-files.js";
import { ImportRefused, at } from "./refusal.js";

/**
 * The files of an export (uploads/, avatars/, emoji/, each listed in its records.json)
 * copied into chatd's store under chatd's keys: uploads by content hash, avatars and
 * custom emoji under the names their rows give.
 */

/** A file a records.json names, inside its folder (never outside the export). */
function recordFile(dir: string, folder: string, record: ZulipRecord, index: number): string {
  const path = record.path;
  const where = at(`${folder}/records.json`, folder, index, "path");
  if (typeof path !== "string" || path === "") throw new ImportRefused(`${where} is not a file path`);
  const base = resolve(dir, folder);
  const file = resolve(base, path);
  if (!file.startsWith(base + sep)) throw new ImportRefused(`${where} points outside ${folder}/`);
  if (!existsSync(file)) throw new ImportRefused(`${folder}/${path} (named by ${where}) is missing`);
  // A symbolic link (or a linked folder on the way) in an unpacked export could name any
  // file the importer may read, which would then be served as an upload or an avatar.
  const realBase = realpathSync(base);
  if (lstatSync(file).isSymbolicLink() || !realpathSync(file).startsWith(realBase + sep)) {
    throw new ImportRefused(
      `${folder}/${path} (named by ${where}) is a link: the export must hold the file itself`,
    );
  }
  if (!lstatSync(file).isFile())
    throw new ImportRefused(`${folder}/${path} (named by ${where}) is not a file`);
  return file;
}

function records(dir: string, folder: string): ZulipRecord[] {
  if (!existsSync(join(dir, folder, "records.json"))) return [];
  const name = `${folder}/records.json`;
  return table({ records: parseExportJson(dir, name) }, name, "records");
}

function sha256Of(file: string): Promise<string> {
  return new Promise((resolveHash, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolveHash(hash.digest("hex")));
  });
}

async function putCopy(store: BlobStore, key: string, file: string): Promise<void> {
  const temp = join(store.tempDir(), `import-${randomUUID()}`);
  await copyFile(file, temp);
  await store.putFile(key, temp);
}

export interface UploadedBytes {
  sha256: string;
  size: number;
}

/** uploads/: each file stored by its hash; returns what each path_id's bytes are. */
export async function copyUploads(dir: string, store: BlobStore): Promise<Map<string, UploadedBytes>> {
  const byPath = new Map<string, UploadedBytes>();
  const list = records(dir, "uploads");
  for (const [i, record] of list.entries()) {
    const file = recordFile(dir, "uploads", record, i);
    const sha256 = await sha256Of(file);
    await putCopy(store, blobKeyOf(sha256), file);
    const pathId = typeof record.s3_path === "string" ? record.s3_path : (record.path as string);
    byPath.set(pathId, { sha256, size: (await stat(file)).size });
  }
  return byPath;
}

/** emoji/: each custom emoji's image (and an animated one's still) under chatd's emoji key. */
export async function copyEmoji(dir: string, store: BlobStore, realmId: number): Promise<number> {
  let copied = 0;
  for (const [i, record] of records(dir, "emoji").entries()) {
    const file = recordFile(dir, "emoji", record, i);
    // Zulip's path is "<realm_id>/emoji/images/<file name>" (or ".../images/still/<name>.png").
    const inImages = (record.path as string).split("/emoji/images/")[1];
    if (inImages === undefined) continue;
    await putCopy(store, emojiBlobKey(realmId, inImages), file);
    copied++;
  }
  return copied;
}

/**
 * avatars/: Zulip's "<realm_id>/<hash>.png", "-medium.png" and ".original" per user. chatd
 * keeps "<base>.png" and "<base>-medium.png"; sizes missing from the export are made from
 * the original. Returns each user's avatar base.
 */
export async function copyAvatars(dir: string, store: BlobStore): Promise<Map<number, string>> {
  const files = new Map<string, { user: number; variants: Map<string, string> }>();
  for (const [i, record] of records(dir, "avatars").entries()) {
    const file = recordFile(dir, "avatars", record, i);
    const match = /^(.*?)(\.original|-medium\.png|\.png)$/.exec(record.path as string);
    const user = record.user_profile_id;
    if (!match || typeof user !== "number") continue;
    const entry = files.get(match[1]!) ?? { user, variants: new Map<string, string>() };
    entry.variants.set(match[2]!, file);
    files.set(match[1]!, entry);
  }
  const bases = new Map<number, string>();
  for (const [base, { user, variants }] of files) {
    const original = variants.get(".original");
    for (const [suffix, size] of [
      [".png", DEFAULT_AVATAR_SIZE],
      ["-medium.png", MEDIUM_AVATAR_SIZE],
    ] as const) {
      const file = variants.get(suffix);
      if (file) await putCopy(store, `avatars/${base}${suffix}`, file);
      else if (original)
        await store.putBytes(`avatars/${base}${suffix}`, await resizeAvatar(await readFile(original), size));
    }
    if (variants.has(".png") || original) bases.set(user, base);
  }
  return bases;
}
