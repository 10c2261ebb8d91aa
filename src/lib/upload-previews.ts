import type { Knex } from "knex";
import { jsonColumn } from "../db/rows.js";
import type { UploadPreview } from "../render/context.js";
import type { AttachmentRow } from "./attachments.js";
import { THUMBNAIL_OUTPUT_FORMATS, formatName, type StoredThumbnail } from "./images.js";
import { thumbnailKeyOf } from "./uploads/names.js";

/** Uploaded images as rendered messages show them (Zulip's get_user_upload_previews). */

export interface ImageAttachmentRow {
  id: number;
  attachment_id: number;
  original_width_px: number;
  original_height_px: number;
  frames: number;
  thumbnail_metadata: unknown;
}

export const storedThumbnails = (row: Pick<ImageAttachmentRow, "thumbnail_metadata">) =>
  jsonColumn<StoredThumbnail[]>(row.thumbnail_metadata, []);

/** The first output format of the image's kind (Zulip's get_default_thumbnail_url). */
export function defaultThumbnailFormat(frames: number) {
  const animated = frames > 1;
  return THUMBNAIL_OUTPUT_FORMATS.find((f) => f.animated === animated) ?? THUMBNAIL_OUTPUT_FORMATS[0]!;
}

/** What a rendered message shows for an uploaded image. */
export function previewOf(
  attachment: Pick<AttachmentRow, "path_id" | "content_type">,
  image: Pick<
    ImageAttachmentRow,
    "original_width_px" | "original_height_px" | "frames" | "thumbnail_metadata"
  >,
): UploadPreview {
  const format = defaultThumbnailFormat(image.frames);
  const ready = storedThumbnails(image).some(
    (t) =>
      t.max_width === format.maxWidth && t.max_height === format.maxHeight && t.animated === format.animated,
  );
  return {
    url: ready ? `/user_uploads/${thumbnailKeyOf(attachment.path_id, formatName(format))}` : null,
    animated: ready && format.animated,
    width: image.original_width_px,
    height: image.original_height_px,
    contentType: attachment.content_type,
  };
}

/** Zulip's pattern for upload links in message source. */
const UPLOAD_LINK = /\/user_uploads\/(\d+\/[/\p{L}\p{N}\p{M}_.-]+)/gu;

/** The previews of the uploaded images a message's source links, by path_id. */
export async function loadUploadPreviews(
  knex: Knex,
  realmId: number,
  content: string,
): Promise<Map<string, UploadPreview>> {
  const previews = new Map<string, UploadPreview>();
  const pathIds = [...new Set(Array.from(content.matchAll(UPLOAD_LINK), (m) => m[1]!))];
  if (pathIds.length === 0) return previews;
  const rows = await knex("image_attachments as i")
    .join("attachments as a", "a.id", "i.attachment_id")
    .where("a.realm_id", realmId)
    .whereIn("a.path_id", pathIds.slice(0, 100))
    .select<Array<AttachmentRow & ImageAttachmentRow>>(
      "a.path_id",
      "a.content_type",
      "i.original_width_px",
      "i.original_height_px",
      "i.frames",
      "i.thumbnail_metadata",
    );
  for (const row of rows) previews.set(row.path_id, previewOf(row, row));
  return previews;
}
