import type { App } from "../app.js";
import { flagNames } from "../lib/message-flags.js";
import type { AttachmentRow } from "../lib/attachments.js";
import { THUMBNAIL_OUTPUT_FORMATS, formatName, makeThumbnail, type StoredThumbnail } from "../lib/images.js";
import { previewOf, storedThumbnails, type ImageAttachmentRow } from "../lib/upload-previews.js";
import { blobKeyOf, thumbnailKeyOf } from "../lib/uploads/names.js";
import { rewriteThumbnailedImages } from "../render/upload-previews.js";

/**
 * Thumbnails of uploaded images (Zulip's thumbnail worker), made in the background after
 * an upload: each format of THUMBNAIL_OUTPUT_FORMATS (still images get no animated one).
 * Messages already sent with the image's loading placeholder are then re-rendered with
 * the thumbnail, and their readers get an update_message event (rendering_only).
 */

export function enqueueThumbnails(app: App, attachmentId: number): void {
  app.jobs.enqueue("thumbnail", () => doMakeThumbnails(app, attachmentId));
}

export async function doMakeThumbnails(app: App, attachmentId: number): Promise<void> {
  const attachment = await app.knex<AttachmentRow>("attachments").where({ id: attachmentId }).first();
  const image = await app
    .knex<ImageAttachmentRow>("image_attachments")
    .where({ attachment_id: attachmentId })
    .first();
  if (!attachment || !image) return;
  const have = new Set(
    storedThumbnails(image).map(
      (t) => `${t.max_width}x${t.max_height}${t.animated ? "-anim" : ""}.${t.extension}`,
    ),
  );
  const missing = THUMBNAIL_OUTPUT_FORMATS.filter(
    (format) => !have.has(formatName(format)) && (image.frames > 1 || !format.animated),
  );
  if (missing.length === 0) return;
  const original = await app.uploads.readBytes(blobKeyOf(attachment.sha256));
  const made: StoredThumbnail[] = [];
  for (const format of missing) {
    const { bytes, stored } = await makeThumbnail(original, format);
    await app.uploads.putBytes(thumbnailKeyOf(attachment.path_id, formatName(format)), bytes);
    made.push(stored);
  }
  await app.db.transaction(async (tx) => {
    const current = await tx.knex<ImageAttachmentRow>("image_attachments").where({ id: image.id }).first();
    if (!current) return;
    const metadata = [...storedThumbnails(current), ...made];
    await tx
      .knex("image_attachments")
      .where({ id: image.id })
      .update({ thumbnail_metadata: JSON.stringify(metadata) });
    const preview = previewOf(attachment, { ...current, thumbnail_metadata: metadata });
    const messages = await tx
      .knex("attachment_messages as am")
      .join("messages as m", "m.id", "am.message_id")
      .where("am.attachment_id", attachment.id)
      .select<Array<{ id: number; realm_id: number; content: string; rendered_content: string }>>(
        "m.id",
        "m.realm_id",
        "m.content",
        "m.rendered_content",
      );
    for (const message of messages) {
      const html = rewriteThumbnailedImages(
        message.rendered_content,
        new Map([[attachment.path_id, preview]]),
      );
      if (html === null) continue;
      await tx.knex("messages").where({ id: message.id }).update({ rendered_content: html });
      const holders = await tx
        .knex("user_messages")
        .where("message_id", message.id)
        .select<Array<{ user_id: number; flags: number }>>("user_id", "flags");
      const event = {
        type: "update_message" as const,
        user_id: null,
        edit_timestamp: tx.now,
        message_id: message.id,
        message_ids: [message.id],
        content: message.content,
        rendered_content: html,
        rendering_only: true,
      };
      tx.sendEventOnCommit(
        message.realm_id,
        event,
        new Map(holders.map((h) => [h.user_id, { flags: flagNames(h.flags) }])),
      );
    }
  });
}
