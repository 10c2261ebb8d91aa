import { availableParallelism } from "node:os";
import type sharpFunction from "sharp";
import { JsonableError, rateLimitHit } from "../errors.js";
import { ConcurrencyGate } from "./concurrency-gate.js";

/**
 * Image work with sharp (libvips), loaded on first use: reading an upload's header,
 * avatars and thumbnails. Like Zulip's zerver/lib/thumbnail.py: only the formats Zulip
 * thumbnails are decoded, and images over IMAGE_BOMB_TOTAL_PIXELS are refused.
 */

let sharpModule: Promise<{ default: typeof sharpFunction }> | undefined;
const loadSharp = async () => (await (sharpModule ??= import("sharp"))).default;

/**
 * Each sharp operation runs on libuv's thread pool (4 threads), as do the sqlite3 driver's
 * queries and file reads. A burst of images just under the bomb limit (a second or more
 * each) queued behind the pool's threads the database work of everyone, a stopping
 * server's last writes included (measured: 60 avatar uploads held a stop 20 s past its
 * deadline). So, as for password hashes: one image operation per two cores at a time,
 * process-wide, a few more wait, and beyond that the request is refused with Zulip's 429.
 */
const imageGate = new ConcurrencyGate(Math.max(1, Math.floor(availableParallelism() / 2)), 16, () =>
  rateLimitHit(1, {}),
);

/** Runs image work with sharp when the gate lets it. */
const withSharp = <T>(work: (sharp: typeof sharpFunction) => Promise<T>): Promise<T> =>
  imageGate.run(async () => work(await loadSharp()));

export const DEFAULT_AVATAR_SIZE = 100;
export const MEDIUM_AVATAR_SIZE = 500;
/** Zulip refuses images with more pixels than this (about a quarter gigabyte decoded). */
const IMAGE_BOMB_TOTAL_PIXELS = 90_000_000;

/** Zulip's THUMBNAIL_ACCEPT_IMAGE_TYPES: what is decoded at all. */
export const THUMBNAIL_ACCEPT_IMAGE_TYPES = new Set([
  "image/avif",
  "image/gif",
  "image/heic",
  "image/jpeg",
  "image/png",
  "image/tiff",
  "image/webp",
]);

export const badImage = (message: string) => new JsonableError(message, "BAD_IMAGE", 400);

export interface ImageInfo {
  width: number;
  height: number;
  frames: number;
}

/** The header of an image file (size after EXIF orientation, frames), or null if not one. */
export async function readImageInfo(path: string, contentType: string): Promise<ImageInfo | null> {
  if (!THUMBNAIL_ACCEPT_IMAGE_TYPES.has(contentType)) return null;
  return withSharp(async (sharp) => {
    try {
      const meta = await sharp(path, { limitInputPixels: false }).metadata();
      if (!meta.width || !meta.height) return null;
      const frames = meta.pages ?? 1;
      const pixels = meta.width * (meta.pageHeight ?? meta.height) * Math.min(frames, 3);
      if (pixels > IMAGE_BOMB_TOTAL_PIXELS) return null;
      const rotated = (meta.orientation ?? 1) >= 5;
      const height = meta.pageHeight ?? meta.height;
      return rotated ? { width: height, height: meta.width, frames } : { width: meta.width, height, frames };
    } catch {
      return null;
    }
  });
}

/**
 * Zulip's resize_avatar: a size x size PNG, scaled so the shorter side fits and the
 * centre cropped (a 1x1000 image becomes its middle pixel, enlarged).
 */
export function resizeAvatar(input: Buffer, size: number): Promise<Buffer> {
  return withSharp(async (sharp) => {
    try {
      const meta = await sharp(input, { limitInputPixels: IMAGE_BOMB_TOTAL_PIXELS }).metadata();
      if (!meta.width || !meta.height) throw new Error("no size");
    } catch {
      throw badImage("Could not decode image; did you upload an image file?");
    }
    return sharp(input, { limitInputPixels: IMAGE_BOMB_TOTAL_PIXELS })
      .rotate()
      .resize(size, size, { fit: "cover", position: "centre" })
      .png()
      .toBuffer();
  });
}

/** A thumbnail format, as Zulip names them ("840x560.webp", "840x560-anim.webp"). */
export interface ThumbnailFormat {
  readonly extension: "webp";
  readonly maxWidth: number;
  readonly maxHeight: number;
  readonly animated: boolean;
}

export const formatName = (f: ThumbnailFormat) =>
  `${f.maxWidth}x${f.maxHeight}${f.animated ? "-anim" : ""}.${f.extension}`;

/** Zulip's THUMBNAIL_OUTPUT_FORMATS; the first of each kind goes into rendered messages. */
export const THUMBNAIL_OUTPUT_FORMATS: readonly ThumbnailFormat[] = [
  { extension: "webp", maxWidth: 840, maxHeight: 560, animated: true },
  { extension: "webp", maxWidth: 840, maxHeight: 560, animated: false },
];

/** One made thumbnail (Zulip's StoredThumbnailFormat, stored as JSON). */
export interface StoredThumbnail {
  extension: string;
  max_width: number;
  max_height: number;
  animated: boolean;
  content_type: string;
  width: number;
  height: number;
  byte_size: number;
}

/** Scales an image down into the format's box (never up), as WebP. */
export async function makeThumbnail(
  input: Buffer,
  format: ThumbnailFormat,
): Promise<{ bytes: Buffer; stored: StoredThumbnail }> {
  const { data, info } = await withSharp((sharp) =>
    sharp(input, {
      animated: format.animated,
      limitInputPixels: IMAGE_BOMB_TOTAL_PIXELS,
    })
      .rotate()
      .resize(format.maxWidth, format.maxHeight, { fit: "inside", withoutEnlargement: true })
      .webp()
      .toBuffer({ resolveWithObject: true }),
  );
  return {
    bytes: data,
    stored: {
      extension: format.extension,
      max_width: format.maxWidth,
      max_height: format.maxHeight,
      animated: format.animated,
      content_type: "image/webp",
      width: info.width,
      height: info.pageHeight ?? info.height,
      byte_size: data.length,
    },
  };
}

/** Zulip's DEFAULT_EMOJI_SIZE: custom emoji are stored as size x size images. */
export const DEFAULT_EMOJI_SIZE = 64;

/** The output formats of custom emoji, by content type (Zulip keeps the uploaded format). */
const EMOJI_OUTPUT = {
  "image/png": "png",
  "image/gif": "gif",
  "image/jpeg": "jpeg",
  "image/webp": "webp",
  "image/avif": "avif",
} as const;

export const EMOJI_CONTENT_TYPES: ReadonlySet<string> = new Set(Object.keys(EMOJI_OUTPUT));

/**
 * Zulip's resize_emoji: cropped to a centred size x size image in the uploaded format,
 * every frame kept; an animated emoji also gets a still PNG of its first frame.
 */
export function resizeEmoji(
  input: Buffer,
  contentType: keyof typeof EMOJI_OUTPUT,
  size = DEFAULT_EMOJI_SIZE,
): Promise<{ image: Buffer; still: Buffer | null }> {
  return withSharp(async (sharp) => {
    let frames: number;
    try {
      const meta = await sharp(input, { limitInputPixels: IMAGE_BOMB_TOTAL_PIXELS }).metadata();
      if (!meta.width || !meta.height) throw new Error("no size");
      frames = meta.pages ?? 1;
    } catch {
      throw badImage("Could not decode image; did you upload an image file?");
    }
    const crop = (animated: boolean) =>
      sharp(input, { animated, limitInputPixels: IMAGE_BOMB_TOTAL_PIXELS })
        .rotate()
        .resize(size, size, { fit: "cover", position: "centre" });
    const format = EMOJI_OUTPUT[contentType];
    if (frames === 1) return { image: await crop(false).toFormat(format).toBuffer(), still: null };
    return {
      image: await crop(true).toFormat(format).toBuffer(),
      still: await crop(false).png().toBuffer(),
    };
  });
}
