import { readFileSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Middleware } from "koa";

/**
 * The web client's built files (dist/web, written by config/build-web.mjs): names carry a
 * hash of their content, so a browser keeps each for a year and never asks again; the
 * HTML pages name them through the build's manifest. Each is served as built, gzip or
 * brotli when the browser takes it (compressed once, at build time).
 */

export const WEB_ASSET_PREFIX = "/static/web/";
/** From dist/src/server/ up to the package root. */
const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const WEB_DIST = join(PACKAGE_ROOT, "dist", "web");

/** The entry points the pages load, by their names in the build (see config/build-web.mjs). */
export interface WebManifest {
  /** The app: its module script, the chunks it imports at once, and its stylesheet. */
  readonly app: { readonly js: string; readonly css: string; readonly preload: readonly string[] };
  /** The login and other server-rendered pages: a stylesheet and a small script. */
  readonly pages: { readonly js: string; readonly css: string };
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};
const IMMUTABLE = "public, max-age=31536000, immutable";

/** The build's manifest, or null when the web client was not built (the pages say so). */
export function loadWebManifest(dist = WEB_DIST): WebManifest | null {
  try {
    return JSON.parse(readFileSync(join(dist, "manifest.json"), "utf8")) as WebManifest;
  } catch {
    return null;
  }
}

interface Asset {
  readonly plain: Buffer;
  readonly gzip: Buffer | null;
  readonly brotli: Buffer | null;
  readonly type: string;
}

function readOptional(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

/** Files under /static/web/: only names the build wrote (a flat directory; no path is resolved). */
export function webAssets(dist = WEB_DIST): Middleware {
  const loaded = new Map<string, Asset | null>();
  const load = (name: string): Asset | null => {
    if (loaded.has(name)) return loaded.get(name)!;
    const type = CONTENT_TYPES[extname(name)];
    const plain = type && /^[\w.-]+$/.test(name) ? readOptional(join(dist, basename(name))) : null;
    const asset =
      plain && type
        ? {
            plain,
            type,
            gzip: readOptional(join(dist, `${name}.gz`)),
            brotli: readOptional(join(dist, `${name}.br`)),
          }
        : null;
    // Unknown names are not remembered: a scan of made-up names must not grow the map.
    if (asset) loaded.set(name, asset);
    return asset;
  };
  return async (ctx, next) => {
    if ((ctx.method !== "GET" && ctx.method !== "HEAD") || !ctx.path.startsWith(WEB_ASSET_PREFIX)) {
      await next();
      return;
    }
    const asset = load(ctx.path.slice(WEB_ASSET_PREFIX.length));
    if (!asset) {
      await next();
      return;
    }
    ctx.set("Cache-Control", IMMUTABLE);
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Vary", "Accept-Encoding");
    ctx.type = asset.type;
    const accepts = ctx.get("accept-encoding");
    if (asset.brotli && /\bbr\b/.test(accepts)) {
      ctx.set("Content-Encoding", "br");
      ctx.body = asset.brotli;
    } else if (asset.gzip && /\bgzip\b/.test(accepts)) {
      ctx.set("Content-Encoding", "gzip");
      ctx.body = asset.gzip;
    } else ctx.body = asset.plain;
  };
}
