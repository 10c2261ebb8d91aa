import type { Context } from "koa";
import type { BlobStore } from "../lib/storage/index.js";
import { isInlineType } from "../lib/uploads/content-type.js";

/**
 * Sending a stored file over HTTP: the type the bytes were found to be, never sniffed by
 * the browser (nosniff), a CSP that runs nothing, downloads for anything a browser would
 * execute, single byte ranges (206/416), ETag and conditional requests.
 */

export interface FileResponse {
  key: string;
  contentType: string;
  /** The name offered in Content-Disposition. */
  fileName: string;
  /** Force a download even for types shown inline. */
  download?: boolean;
  /** A strong validator for the bytes (a content hash), else size and time are used. */
  etag?: string;
  cacheControl: string;
}

/** Nothing in an uploaded file may run: no scripts, no plugins, no forms; only its own media. */
const FILE_CSP =
  "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; object-src 'self'";

export async function sendStoredFile(ctx: Context, store: BlobStore, file: FileResponse): Promise<void> {
  const info = await store.stat(file.key);
  if (!info) {
    ctx.status = 404;
    ctx.body = { result: "error", msg: "This file does not exist or has been deleted.", code: "NOT_FOUND" };
    return;
  }
  const etag = `"${file.etag ?? `${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}`}"`;
  const inline = !file.download && isInlineType(file.contentType);
  ctx.set("ETag", etag);
  ctx.set("Cache-Control", file.cacheControl);
  ctx.set("Accept-Ranges", "bytes");
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("Content-Security-Policy", inline ? FILE_CSP : `${FILE_CSP}; sandbox`);
  ctx.set("Content-Disposition", contentDisposition(inline ? "inline" : "attachment", file.fileName));
  const ifNoneMatch = ctx.get("if-none-match");
  if (ifNoneMatch && ifNoneMatch.split(",").some((tag) => [etag, `W/${etag}`, "*"].includes(tag.trim()))) {
    ctx.status = 304;
    return;
  }
  const type = file.contentType === "text/plain" ? "text/plain; charset=utf-8" : file.contentType;
  const range = wantedRange(ctx, etag, info.size);
  if (range === "unsatisfiable") {
    ctx.status = 416;
    ctx.set("Content-Range", `bytes */${info.size}`);
    ctx.body = { result: "error", msg: "Requested range not satisfiable", code: "BAD_REQUEST" };
    return;
  }
  const head = ctx.method === "HEAD";
  if (range) {
    ctx.status = 206;
    ctx.set("Content-Range", `bytes ${range.start}-${range.end}/${info.size}`);
    ctx.body = head || info.size === 0 ? "" : store.read(file.key, range);
    ctx.type = type;
    ctx.length = range.end - range.start + 1;
    return;
  }
  ctx.status = 200;
  ctx.body = head || info.size === 0 ? "" : store.read(file.key);
  ctx.type = type;
  ctx.length = info.size;
}

/**
 * One range of `Range: bytes=a-b`, `a-` or `-n`; null for the whole file (no header, an
 * If-Range that no longer matches, several ranges, or a unit other than bytes).
 */
function wantedRange(
  ctx: Context,
  etag: string,
  size: number,
): { start: number; end: number } | null | "unsatisfiable" {
  const header = ctx.get("range");
  if (!header) return null;
  const ifRange = ctx.get("if-range");
  if (ifRange && ifRange !== etag) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return header.trim().startsWith("bytes=") && !header.includes(",") ? "unsatisfiable" : null;
  const [, from, to] = match;
  if (from === "" && to === "") return "unsatisfiable";
  if (from === "") {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === "" ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || end < start) return "unsatisfiable";
  return { start, end };
}

/** RFC 6266: an ASCII fallback name and the exact name as RFC 5987 UTF-8. */
export function contentDisposition(kind: "inline" | "attachment", fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
