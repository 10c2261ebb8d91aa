import type { Context, Middleware } from "koa";
import type { App } from "../app.js";
import { JsonableError, badRequest, notLoggedIn } from "../errors.js";
import { authenticate, authenticateSession } from "../http/auth.js";
import { cookieValue, SESSION_COOKIE } from "../lib/sessions.js";
import { serverSecret } from "../lib/attachments.js";
import { isSafeKey } from "../lib/storage/index.js";
import { blobKeyOf, thumbnailKeyOf } from "../lib/uploads/names.js";
import { pathIdFromToken } from "../lib/uploads/tokens.js";
import { THUMBNAIL_OUTPUT_FORMATS, formatName } from "../lib/images.js";
import { storedThumbnails, type ImageAttachmentRow } from "../lib/upload-previews.js";
import { accessFile, type FileViewer } from "../queries/attachments.js";
import type { AttachmentRow } from "../lib/attachments.js";
import { sendStoredFile } from "./file-response.js";

/**
 * Uploaded files and avatars, outside /api/v1 as in Zulip (zproject/urls.py):
 *
 *   /user_uploads/<realm_id>/<path>                 the file (HTTP Basic auth, or none for spectators)
 *   /user_uploads/download/<realm_id>/<path>        the same, always as a download
 *   /user_uploads/thumbnail/<realm_id>/<path>/<fmt> a thumbnail of an uploaded image
 *   /user_uploads/temporary/<token>/<name>          a signed link, no auth, for 60 seconds
 *   /user_avatars/<realm_id>/<file>                 avatars (no auth: names are salted hashes)
 *
 * Every file goes through the attachment rule (queries/attachments.ts) first.
 */

const FILE_CACHE = "private, max-age=86400, immutable";
const AVATAR_CACHE = "public, max-age=31536000, immutable";
/** A data export is the whole organization's data: no shared cache may keep it after it is deleted. */
const EXPORT_CACHE = "private, no-store";

const fileMissing = () =>
  new JsonableError("This file does not exist or has been deleted.", "NOT_FOUND", 404);
const fileForbidden = () =>
  new JsonableError("You are not authorized to view this file.", "BAD_REQUEST", 403);

export function userUploads(app: App): Middleware {
  return async (ctx, next) => {
    const read = ctx.method === "GET" || ctx.method === "HEAD";
    if (read && ctx.path.startsWith("/user_uploads/")) {
      await serveUpload(app, ctx, ctx.path.slice("/user_uploads/".length));
    } else if (read && ctx.path.startsWith("/user_avatars/")) {
      await serveAvatar(app, ctx, ctx.path.slice("/user_avatars/".length));
    } else {
      await next();
    }
  };
}

function decodedParts(rest: string): string[] | null {
  try {
    const parts = rest.split("/").map((part) => decodeURIComponent(part));
    return parts.every((p) => p !== "" && p !== "." && p !== ".." && !p.includes("/")) ? parts : null;
  } catch {
    return null;
  }
}

async function serveUpload(app: App, ctx: Context, rest: string): Promise<void> {
  const parts = decodedParts(rest);
  if (!parts || parts.length < 2) throw fileMissing();
  if (parts[0] === "temporary") return serveTemporary(app, ctx, parts.slice(1));
  const download = parts[0] === "download";
  const thumbnail = parts[0] === "thumbnail";
  const pathParts = download || thumbnail ? parts.slice(1) : parts;
  const format = thumbnail ? pathParts.pop() : undefined;
  if (!/^\d+$/.test(pathParts[0] ?? "") || pathParts.length < 2) throw fileMissing();
  const pathId = pathParts.join("/");
  const viewer = await viewerOf(app, ctx);
  const access = await accessFile(app, viewer, pathId);
  if (access.kind === "missing") throw fileMissing();
  if (access.kind === "forbidden") {
    if ("spectatorRealmId" in viewer) throw notLoggedIn();
    throw fileForbidden();
  }
  const { attachment } = access;
  if (format !== undefined) return serveThumbnail(app, ctx, attachment, format);
  await sendStoredFile(ctx, app.uploads, {
    key: blobKeyOf(attachment.sha256),
    contentType: attachment.content_type,
    fileName: attachment.file_name,
    download,
    etag: attachment.sha256,
    cacheControl: FILE_CACHE,
  });
}

/** Basic auth when given (and then it must be valid); otherwise a spectator of this server's realm. */
async function viewerOf(app: App, ctx: Context): Promise<FileViewer> {
  const header = ctx.get("authorization");
  if (header) {
    const { user } = await authenticate(app, header);
    ctx.state.userId = user.id;
    return { user };
  }
  // The web client's images and links carry its session cookie (SameSite=Lax: only this site's pages).
  if (cookieValue(ctx.get("cookie"), SESSION_COOKIE) !== undefined) {
    const session = await authenticateSession(app, { method: "GET", header: (name) => ctx.get(name) }).catch(
      (err: unknown) => {
        if (err instanceof JsonableError) return null;
        throw err;
      },
    );
    if (session) {
      ctx.state.userId = session.user.id;
      return { user: session.user };
    }
  }
  const realm = await app.realms.primaryRealm(app.knex);
  if (!realm) throw notLoggedIn();
  return { spectatorRealmId: realm.id };
}

async function serveThumbnail(
  app: App,
  ctx: Context,
  attachment: AttachmentRow,
  format: string,
): Promise<void> {
  const image = await app
    .knex<ImageAttachmentRow>("image_attachments")
    .where({ attachment_id: attachment.id })
    .first();
  const made = image ? storedThumbnails(image) : [];
  const wanted = made.find(
    (t) => `${t.max_width}x${t.max_height}${t.animated ? "-anim" : ""}.${t.extension}` === format,
  );
  if (!image || !wanted || !THUMBNAIL_OUTPUT_FORMATS.some((f) => formatName(f) === format)) {
    // Not made (yet), or no such format: Zulip answers 404 for both.
    throw fileMissing();
  }
  await sendStoredFile(ctx, app.uploads, {
    key: thumbnailKeyOf(attachment.path_id, format),
    contentType: wanted.content_type,
    fileName: format,
    cacheControl: FILE_CACHE,
  });
}

async function serveTemporary(app: App, ctx: Context, parts: string[]): Promise<void> {
  if (parts.length !== 2) throw badRequest("Invalid token");
  const [token, fileName] = parts as [string, string];
  const key = await serverSecret(app.knex, "upload_token_key");
  const pathId = pathIdFromToken(key, token, Math.floor(app.clock.nowMs() / 1000));
  if (pathId === null) throw badRequest("Invalid token");
  if (pathId.slice(pathId.lastIndexOf("/") + 1) !== fileName) throw badRequest("Invalid filename");
  const attachment = await app.knex<AttachmentRow>("attachments").where({ path_id: pathId }).first();
  if (!attachment) throw badRequest("Invalid token");
  await sendStoredFile(ctx, app.uploads, {
    key: blobKeyOf(attachment.sha256),
    contentType: attachment.content_type,
    fileName: attachment.file_name,
    etag: attachment.sha256,
    cacheControl: "private, no-store",
  });
}

const AVATAR_TYPES: Record<string, string> = {
  png: "image/png",
  gif: "image/gif",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  avif: "image/avif",
};

async function serveAvatar(app: App, ctx: Context, rest: string): Promise<void> {
  const parts = decodedParts(rest);
  const key = parts ? `avatars/${parts.join("/")}` : "";
  if (!parts || !/^\d+$/.test(parts[0]!) || !isSafeKey(key)) throw fileMissing();
  const extension = key.slice(key.lastIndexOf(".") + 1).toLowerCase();
  await sendStoredFile(ctx, app.uploads, {
    key,
    contentType: AVATAR_TYPES[extension] ?? "application/octet-stream",
    fileName: parts[parts.length - 1]!,
    cacheControl: parts[1] === "exports" ? EXPORT_CACHE : AVATAR_CACHE,
  });
}
