import type { App } from "../app.js";
import { loadWorld } from "../cache/world.js";
import { insertReturningId } from "../db/insert.js";
import type { UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { JsonableError, badRequest } from "../errors.js";
import type { UploadedFile } from "../lib/uploads/uploaded-file.js";
import { attachmentFacts, linkedMessages, uploadSpaceUsed, type AttachmentRow } from "../lib/attachments.js";
import { readImageInfo } from "../lib/images.js";
import { sniffContentType } from "../lib/uploads/content-type.js";
import { blobKeyOf, newPathId } from "../lib/uploads/names.js";
import { userMayAccessAttachment } from "../permissions/attachment-access.js";
import type { ChannelWorld } from "../permissions/channel-access.js";
import { presentAttachment } from "../presenters/attachments.js";
import { attachmentEvents } from "../presenters/events/attachments.js";
import { enqueueThumbnails } from "./thumbnails.js";

/**
 * Uploaded files: POST /user_uploads, DELETE /attachments/{id}, claims by messages that
 * link them (Zulip's do_claim_attachments), and the sweep of unclaimed files.
 */

const MIB = 1024 * 1024;

/** Zulip's error for a file over MAX_FILE_UPLOAD_SIZE (a 413: it is refused while streaming). */
export function fileTooLarge(maxMib: number): JsonableError {
  return new JsonableError(
    `File is larger than this server's configured maximum upload size (${maxMib} MiB).`,
    "PAYLOAD_TOO_LARGE",
    413,
  );
}

export const uploadLimits = (app: App) => ({
  maxFileBytes: app.config.max_file_upload_size_mib * MIB,
  tooLarge: () => fileTooLarge(app.config.max_file_upload_size_mib),
});

/** The one file of an upload request, or Zulip's errors for none or several. */
export function singleFile(files: readonly UploadedFile[]): UploadedFile {
  if (files.length === 0) throw badRequest("You must specify a file to upload");
  if (files.length !== 1) throw badRequest("You may only upload one file at a time");
  return files[0]!;
}

async function requireWithinQuota(app: App, tx: Tx, realmId: number, size: number): Promise<void> {
  const quotaMib = app.config.realm_upload_quota_mib;
  if (quotaMib === 0) return;
  if ((await uploadSpaceUsed(tx.knex, realmId)) + size > quotaMib * MIB) {
    throw new JsonableError("Upload would exceed your organization's upload quota.", "REALM_UPLOAD_QUOTA");
  }
}

/** Stores an uploaded file for its owner; returns its URL and the name the client gave. */
export async function checkUploadFile(
  app: App,
  user: UserRow,
  files: readonly UploadedFile[],
): Promise<{ url: string; filename: string }> {
  const file = singleFile(files);
  const fileName = file.originalName === "" ? "uploaded-file" : file.originalName;
  const contentType = await sniffContentType(file.path);
  const image = await readImageInfo(file.path, contentType);
  await app.db.transaction(async (tx) => requireWithinQuota(app, tx, user.realm_id, file.size));
  // The bytes go in before the row: a row never names missing bytes, and bytes whose row
  // never came are removed by the sweep.
  await app.uploads.putFile(blobKeyOf(file.sha256), file.path);
  const pathId = newPathId(user.realm_id, fileName);
  const { attachmentId, imageId } = await app.db.transaction(async (tx) => {
    await requireWithinQuota(app, tx, user.realm_id, file.size);
    const row = {
      realm_id: user.realm_id,
      owner_id: user.id,
      path_id: pathId,
      file_name: fileName,
      size: file.size,
      sha256: file.sha256,
      content_type: contentType,
      create_time: tx.now,
    };
    const id = await insertReturningId(tx.knex, "attachments", row);
    const imageRowId = image
      ? await insertReturningId(tx.knex, "image_attachments", {
          attachment_id: id,
          original_width_px: image.width,
          original_height_px: image.height,
          frames: image.frames,
          thumbnail_metadata: "[]",
        })
      : null;
    const used = await uploadSpaceUsed(tx.knex, user.realm_id);
    tx.sendEventOnCommit(user.realm_id, attachmentEvents.add(presentAttachment({ id, ...row }, []), used), [
      user.id,
    ]);
    return { attachmentId: id, imageId: imageRowId };
  });
  if (imageId !== null) enqueueThumbnails(app, attachmentId);
  return { url: `/user_uploads/${pathId}`, filename: fileName };
}

/** DELETE /attachments/{id}: only the owner; another's file looks like a missing one. */
export async function checkDeleteAttachment(app: App, user: UserRow, attachmentId: number): Promise<void> {
  const removed = await app.db.transaction(async (tx) => {
    const row = await tx
      .knex<AttachmentRow>("attachments")
      .where({ id: attachmentId, owner_id: user.id })
      .first();
    if (!row) throw badRequest("Invalid attachment");
    await deleteAttachmentRows(tx, [row.id]);
    const used = await uploadSpaceUsed(tx.knex, user.realm_id);
    tx.sendEventOnCommit(user.realm_id, attachmentEvents.remove(row.id, used), [user.id]);
    return row;
  });
  await removeStoredFiles(app, [removed]);
}

async function deleteAttachmentRows(tx: Tx, ids: number[]): Promise<void> {
  await tx.knex("attachment_messages").whereIn("attachment_id", ids).delete();
  await tx.knex("image_attachments").whereIn("attachment_id", ids).delete();
  await tx.knex("attachments").whereIn("id", ids).delete();
}

/**
 * After the rows are gone: the thumbnails, and the bytes unless another upload has the
 * same content or a backup is copying (then the sweep removes them later).
 */
async function removeStoredFiles(app: App, rows: readonly AttachmentRow[]): Promise<void> {
  if (await app.uploads.deletionsPaused()) return;
  for (const row of rows) {
    for await (const entry of app.uploads.list(`thumbnail/${row.path_id}/`))
      await app.uploads.delete(entry.key);
    const shared = await app
      .knex("attachments")
      .where({ sha256: row.sha256 })
      .first<{ id: number } | undefined>("id");
    if (!shared) await app.uploads.delete(blobKeyOf(row.sha256));
  }
}

/** A message whose links to uploads are being recorded. */
export interface ClaimingMessage {
  id: number;
  realmId: number;
  sender: UserRow;
}

/**
 * Zulip's do_claim_attachments: links the message to each linked upload the sender may
 * read (others are ignored: a made-up or foreign link claims nothing), and tells the
 * sender. Returns whether any upload was claimed (the message's has_attachment).
 */
export async function doClaimAttachments(
  tx: Tx,
  world: ChannelWorld,
  message: ClaimingMessage,
  pathIds: readonly string[],
): Promise<boolean> {
  let claimed = false;
  for (const pathId of new Set(pathIds)) {
    const row = await tx
      .knex<AttachmentRow>("attachments")
      .where({ path_id: pathId, realm_id: message.realmId })
      .first();
    if (!row) continue;
    const facts = await attachmentFacts(tx.knex, row, message.sender.id);
    if (!userMayAccessAttachment(world, message.sender, facts)) continue;
    await tx
      .knex("attachment_messages")
      .insert({ attachment_id: row.id, message_id: message.id })
      .onConflict(["attachment_id", "message_id"])
      .ignore();
    claimed = true;
    const messages = (await linkedMessages(tx.knex, [row.id])).get(row.id) ?? [];
    const used = await uploadSpaceUsed(tx.knex, message.realmId);
    tx.sendEventOnCommit(message.realmId, attachmentEvents.update(presentAttachment(row, messages), used), [
      message.sender.id,
    ]);
  }
  return claimed;
}

/**
 * Zulip's check_attachment_reference_change, for an edit: unlinks uploads the new content
 * no longer links, claims new ones, and keeps has_attachment true to what remains.
 */
export async function doUpdateAttachmentClaims(
  tx: Tx,
  world: ChannelWorld,
  message: ClaimingMessage,
  pathIds: readonly string[],
): Promise<void> {
  const previous = await tx
    .knex("attachment_messages as am")
    .join("attachments as a", "a.id", "am.attachment_id")
    .where("am.message_id", message.id)
    .select<Array<{ id: number; path_id: string }>>("a.id", "a.path_id");
  const wanted = new Set(pathIds);
  const dropped = previous.filter((row) => !wanted.has(row.path_id)).map((row) => row.id);
  if (dropped.length > 0) {
    await tx
      .knex("attachment_messages")
      .where("message_id", message.id)
      .whereIn("attachment_id", dropped)
      .delete();
  }
  const known = new Set(previous.map((row) => row.path_id));
  await doClaimAttachments(
    tx,
    world,
    message,
    pathIds.filter((id) => !known.has(id)),
  );
  const remaining = await tx
    .knex("attachment_messages")
    .where("message_id", message.id)
    .first<{ attachment_id: number } | undefined>("attachment_id");
  await tx
    .knex("messages")
    .where("id", message.id)
    .update({ has_attachment: remaining !== undefined });
}

/** Claims for newly sent messages (doSendMessages), then marks those that claimed any. */
export async function doClaimForSentMessages(
  app: App,
  tx: Tx,
  messages: ReadonlyArray<ClaimingMessage & { pathIds: readonly string[] }>,
): Promise<void> {
  // A group commit's messages share a realm or a few: one world each, not one per message.
  const worlds = new Map<number, ChannelWorld>();
  for (const message of messages) {
    if (message.pathIds.length === 0) continue;
    let world = worlds.get(message.realmId);
    if (!world) worlds.set(message.realmId, (world = await loadWorld(app, tx.knex, message.realmId)));
    if (await doClaimAttachments(tx, world, message, message.pathIds)) {
      await tx.knex("messages").where("id", message.id).update({ has_attachment: true });
    }
  }
}

/** Stored files nothing names are removed only after this long (an upload may be committing). */
const ORPHAN_GRACE_MS = 3600 * 1000;
const STALE_TEMP_MS = 24 * 3600 * 1000;
const SWEEP_BATCH = 500;

/**
 * The periodic sweep (off the request path): uploads no message links, older than the
 * retention, are deleted (Zulip's delete_old_unclaimed_attachments; no event, as in
 * Zulip); then stored bytes and thumbnails no upload names, and dead temporary files.
 */
export async function sweepUploads(app: App): Promise<{ attachments: number; blobs: number }> {
  const cutoff = Math.floor(app.clock.nowMs() / 1000) - app.config.unclaimed_upload_retention_days * 86400;
  let attachments = 0;
  for (;;) {
    const rows = await app
      .knex<AttachmentRow>("attachments as a")
      .whereNotExists(app.knex("attachment_messages as am").whereRaw("am.attachment_id = a.id"))
      .where("a.create_time", "<", cutoff)
      .limit(SWEEP_BATCH)
      .select<AttachmentRow[]>("a.*");
    if (rows.length === 0) break;
    const deleted = await app.db.transaction(async (tx) => {
      // Claimed meanwhile? Then it stays.
      const stillUnclaimed = await tx
        .knex("attachments as a")
        .whereIn(
          "a.id",
          rows.map((row) => row.id),
        )
        .whereNotExists(tx.knex("attachment_messages as am").whereRaw("am.attachment_id = a.id"))
        .pluck<number[]>("a.id");
      await deleteAttachmentRows(tx, stillUnclaimed);
      return new Set(stillUnclaimed);
    });
    attachments += deleted.size;
    await removeStoredFiles(
      app,
      rows.filter((row) => deleted.has(row.id)),
    );
    if (rows.length < SWEEP_BATCH) break;
  }
  let blobs = 0;
  if (await app.uploads.deletionsPaused()) return { attachments, blobs };
  const now = app.clock.nowMs();
  for await (const entry of app.uploads.list("files/")) {
    if (now - entry.mtimeMs < ORPHAN_GRACE_MS) continue;
    const sha256 = entry.key.slice(entry.key.lastIndexOf("/") + 1);
    if (await app.knex("attachments").where({ sha256 }).first("id")) continue;
    await app.uploads.delete(entry.key);
    blobs++;
  }
  for await (const entry of app.uploads.list("thumbnail/")) {
    const pathId = entry.key.slice("thumbnail/".length, entry.key.lastIndexOf("/"));
    if (await app.knex("attachments").where({ path_id: pathId }).first("id")) continue;
    await app.uploads.delete(entry.key);
  }
  await app.uploads.deleteStaleTemp(STALE_TEMP_MS);
  return { attachments, blobs };
}
