import type { Middleware } from "koa";
import { EMOJI_DATA_PATH, emojiDataFile } from "../render/emoji-table.js";

/**
 * GET `server_emoji_data_url`: Zulip's emoji name table, `{"code_to_names": {...}}`. Like
 * Zulip's static file it needs no authentication (the mobile app fetches it without
 * credentials). The URL register hands out carries the table's version, so a response
 * to it may be cached for good; any other is revalidated with the ETag.
 */
export function emojiData(): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== EMOJI_DATA_PATH || (ctx.method !== "GET" && ctx.method !== "HEAD")) {
      await next();
      return;
    }
    const file = emojiDataFile();
    const etag = `"${file.version}"`;
    ctx.set("ETag", etag);
    ctx.set(
      "Cache-Control",
      ctx.query.v === file.version ? "public, max-age=31536000, immutable" : "public, no-cache",
    );
    ctx.vary("Accept-Encoding");
    const known = ctx
      .get("If-None-Match")
      .split(",")
      .map((tag) => tag.trim().replace(/^W\//, ""));
    if (known.includes(etag)) {
      ctx.status = 304;
      return;
    }
    ctx.type = "application/json";
    if (ctx.acceptsEncodings("gzip", "identity") === "gzip") {
      ctx.set("Content-Encoding", "gzip");
      ctx.body = file.gzipped;
    } else {
      ctx.body = file.body;
    }
  };
}
