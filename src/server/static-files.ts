import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Middleware } from "koa";

/**
 * Files under /static (the default realm icon), served from src/server/static as they
 * are committed: no build step. They change only with a new chatd release, so clients
 * may cache them for a day and then revalidate with the ETag.
 */

export const STATIC_PREFIX = "/static/";
/** From dist/src/server/ (or src/server/) up to the package root. */
const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const STATIC_ROOT = join(PACKAGE_ROOT, "src", "server", "static");

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".css": "text/css; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};
const CACHE_CONTROL = "public, max-age=86400";

interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

/** The file for a request path, or null: unknown types, directories and escapes are not served. */
function resolveStatic(root: string, path: string): string | null {
  let relativePath: string;
  try {
    relativePath = decodeURIComponent(path.slice(STATIC_PREFIX.length));
  } catch {
    return null;
  }
  if (relativePath.includes("\0")) return null;
  const file = resolve(root, relativePath);
  if (!file.startsWith(root + sep) || CONTENT_TYPES[extname(file)] === undefined) return null;
  try {
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

export function staticFiles(root = STATIC_ROOT): Middleware {
  const loaded = new Map<string, StaticFile>();
  const load = (file: string): StaticFile => {
    let entry = loaded.get(file);
    if (!entry) {
      const body = readFileSync(file);
      const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
      entry = { body, type: CONTENT_TYPES[extname(file)]!, etag };
      loaded.set(file, entry);
    }
    return entry;
  };
  return async (ctx, next) => {
    const file =
      (ctx.method === "GET" || ctx.method === "HEAD") && ctx.path.startsWith(STATIC_PREFIX)
        ? resolveStatic(root, ctx.path)
        : null;
    if (!file) {
      await next();
      return;
    }
    const entry = load(file);
    ctx.set("Cache-Control", CACHE_CONTROL);
    ctx.set("ETag", entry.etag);
    ctx.set("X-Content-Type-Options", "nosniff");
    const known = ctx
      .get("if-none-match")
      .split(",")
      .map((tag) => tag.trim().replace(/^W\//, ""));
    if (known.includes(entry.etag)) {
      ctx.status = 304;
      return;
    }
    ctx.type = entry.type;
    ctx.body = entry.body;
  };
}
