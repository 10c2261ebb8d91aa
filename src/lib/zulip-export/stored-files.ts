import { mkdir, writeFile } from "node:fs/promises";
import { createWriteStream } from "node:fs";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { Knex } from "knex";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../../db/private-files.js";
import { emojiBlobKey, stillFileName } from "../realm-emoji.js";
import type { BlobStore } from "../storage/index.js";
import { blobKeyOf } from "../uploads/names.js";
import { JsonTablesFile } from "./json-file.js";
import { booleanColumns, convertRow, pages, type Row } from "./rows.js";
import type { ExportScope } from "./scope.js";

/** Copies one stored blob to `target`; false when it is gone. */
async function copyBlob(store: BlobStore, key: string, target: string): Promise<number | null> {
  const info = await store.stat(key);
  if (!info) return null;
  await mkdir(dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE });
  await pipeline(store.read(key), createWriteStream(target, { flags: "wx", mode: PRIVATE_FILE_MODE }));
  return info.size;
}

async function writeRecords(dir: string, records: Row[]): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // Zulip's write_records_json_file sorts by path.
  records.sort((a, b) => (String(a.path) < String(b.path) ? -1 : String(a.path) > String(b.path) ? 1 : 0));
  await writeFile(join(dir, "records.json"), `${JSON.stringify(records, null, 2)}\n`, {
    mode: PRIVATE_FILE_MODE,
  });
}

export interface StoredFilesResult {
  uploads: number;
  avatars: number;
  emoji: number;
  missing: string[];
}

/**
 * attachment.json (zerver_attachment: the uploads the exported messages link, each with
 * the exported messages that link it) and uploads/, avatars/, emoji/ with their
 * records.json as Zulip's export_uploads_from_local, export_avatars_from_local and
 * export_emoji_from_local write them. chatd stores an upload's bytes by content hash;
 * they are written at the upload's path_id, where Zulip keeps them.
 */
export async function writeStoredFiles(
  knex: Knex,
  store: BlobStore,
  dir: string,
  scope: ExportScope,
): Promise<StoredFilesResult> {
  const missing: string[] = [];
  const uploadRecords: Row[] = [];
  const attachments = new JsonTablesFile(join(dir, "attachment.json"));
  await attachments.table("zerver_attachment");
  const booleans = await booleanColumns(knex, "attachments");
  const linked = () =>
    knex("attachments as a")
      .join("users as u", "u.id", "a.owner_id")
      .where("a.realm_id", scope.realmId)
      .whereExists(
        scope
          .messages(
            knex("attachment_messages as am")
              .join("messages as m", "m.id", "am.message_id")
              .whereRaw("am.attachment_id = a.id"),
          )
          .select(knex.raw("1")),
      )
      .select("a.*", "u.email as owner_email");
  for await (const page of pages(linked, "a.id", 200)) {
    const ids = page.map((r) => Number(r.id));
    const links = await scope
      .messages(knex("attachment_messages as am").join("messages as m", "m.id", "am.message_id"))
      .whereIn("am.attachment_id", ids)
      .orderBy("am.message_id")
      .select<Row[]>("am.attachment_id", "am.message_id");
    for (const row of page) {
      const { owner_email: ownerEmail, ...attachment } = row;
      const out = convertRow(
        attachment,
        { foreignKeys: ["realm_id", "owner_id"], chatdOnly: ["sha256"] },
        booleans,
      );
      out.messages = links
        .filter((l) => Number(l.attachment_id) === Number(row.id))
        .map((l) => Number(l.message_id));
      out.scheduled_messages = [];
      await attachments.row(out);
      const pathId = String(row.path_id);
      const size = await copyBlob(
        store,
        blobKeyOf(String(row.sha256)),
        join(dir, "uploads", ...pathId.split("/")),
      );
      if (size === null) {
        missing.push(pathId);
        continue;
      }
      uploadRecords.push({
        realm_id: scope.realmId,
        user_profile_id: Number(row.owner_id),
        user_profile_email: ownerEmail,
        s3_path: pathId,
        path: pathId,
        size,
        last_modified: Number(row.create_time),
        content_type: row.content_type ?? null,
      });
    }
  }
  await attachments.close();
  await writeRecords(join(dir, "uploads"), uploadRecords);

  // avatars/: chatd stores <avatar_file>.png and its -medium.png (Zulip: <hash>.png, -medium.png, .original).
  const avatarRecords: Row[] = [];
  const avatarUsers = await knex("users")
    .where({ realm_id: scope.realmId, avatar_source: "U" })
    .whereNotNull("avatar_file")
    .orderBy("id")
    .select<Row[]>("id", "email", "avatar_file", "avatar_version");
  for (const user of avatarUsers) {
    for (const suffix of [".png", "-medium.png"]) {
      const path = `${String(user.avatar_file)}${suffix}`;
      const size = await copyBlob(store, `avatars/${path}`, join(dir, "avatars", ...path.split("/")));
      if (size === null) {
        missing.push(`avatars/${path}`);
        continue;
      }
      avatarRecords.push({
        realm_id: scope.realmId,
        user_profile_id: Number(user.id),
        user_profile_email: user.email,
        s3_path: path,
        path,
        size,
        last_modified: null,
        content_type: "image/png",
        avatar_version: Number(user.avatar_version),
      });
    }
  }
  await writeRecords(join(dir, "avatars"), avatarRecords);

  // emoji/<realm_id>/emoji/images/<file_name> (Zulip's RealmEmoji.PATH_ID_TEMPLATE).
  const emojiRecords: Row[] = [];
  const emoji = await knex("realm_emoji")
    .where({ realm_id: scope.realmId })
    .whereNotNull("file_name")
    .orderBy("id")
    .select<Row[]>("*");
  for (const row of emoji) {
    const fileName = String(row.file_name);
    const files = [
      fileName,
      ...(row.is_animated === true || row.is_animated === 1 ? [stillFileName(fileName)] : []),
    ];
    for (const name of files) {
      const key = emojiBlobKey(scope.realmId, name);
      const path = key.slice("avatars/".length);
      const size = await copyBlob(store, key, join(dir, "emoji", ...path.split("/")));
      if (size === null) {
        missing.push(key);
        continue;
      }
      emojiRecords.push({
        realm_id: scope.realmId,
        author: row.author_id ?? null,
        path,
        s3_path: path,
        file_name: fileName,
        name: row.name,
        deactivated: row.deactivated === true || row.deactivated === 1,
        // The still image chatd makes of an animated emoji (Zulip makes it again on import).
        ...(name !== fileName ? { chatd_still: true } : {}),
      });
    }
  }
  await writeRecords(join(dir, "emoji"), emojiRecords);
  // chatd has no uploaded realm icons or logos: an empty list, as Zulip writes for none.
  await writeRecords(join(dir, "realm_icons"), []);
  return {
    uploads: uploadRecords.length,
    avatars: avatarRecords.length,
    emoji: emojiRecords.length,
    missing,
  };
}
