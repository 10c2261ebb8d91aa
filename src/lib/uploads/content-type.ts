import { open } from "node:fs/promises";
import type * as FileTypeModule from "file-type";

/**
 * What a file is, from its bytes (never from the client's Content-Type or the name), and
 * how a browser may be given it. Binary formats are recognised by their magic numbers
 * (the file-type package); text is text/plain unless it starts like markup a browser
 * would run (HTML, SVG, XML), which is named as such and always downloaded.
 */

/** Zulip's INLINE_MIME_TYPES: shown in the browser; everything else is downloaded. */
const INLINE = new Set([
  "application/pdf",
  "audio/aac",
  "audio/flac",
  "audio/mp4",
  "audio/mpeg",
  "audio/ogg",
  "audio/wav",
  "audio/webm",
  "image/apng",
  "image/avif",
  "image/gif",
  "image/jpeg",
  "image/png",
  "image/webp",
  "text/plain",
  "video/mp4",
  "video/ogg",
  "video/webm",
]);

/** Served inline (`Content-Disposition: inline`), or only as a download. */
export const isInlineType = (contentType: string) => INLINE.has(contentType.split(";", 1)[0]!.trim());

const SNIFF_BYTES = 4100;

/** Markup browsers execute: matched at the start of a text file (after a BOM and blanks). */
const MARKUP: Array<[RegExp, string]> = [
  [/^<svg[\s>]/i, "image/svg+xml"],
  [/^<\?xml[\s\S]*<svg[\s>]/i, "image/svg+xml"],
  [/^<!doctype\s+html|^<(html|head|body|script|iframe|div|p|a|img|meta|title|style)[\s/>]/i, "text/html"],
  [/^<!--/, "text/html"],
  [/^<\?xml/i, "text/xml"],
];

let fileTypeModule: Promise<typeof FileTypeModule> | undefined;

/** The content type of a file on disk. */
export async function sniffContentType(path: string): Promise<string> {
  fileTypeModule ??= import("file-type");
  const { fileTypeFromFile } = await fileTypeModule;
  const detected = await fileTypeFromFile(path);
  if (detected) return normalize(detected.mime);
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return textType(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** file-type's names for a few types differ from what browsers expect. */
function normalize(mime: string): string {
  if (mime === "audio/x-flac") return "audio/flac";
  if (mime === "audio/x-wav" || mime === "audio/vnd.wave") return "audio/wav";
  if (mime === "application/xml") return "text/xml";
  return mime;
}

function textType(head: Buffer): string {
  if (head.length === 0) return "text/plain";
  if (head.includes(0)) return "application/octet-stream";
  const text = head
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart();
  for (const [pattern, type] of MARKUP) if (pattern.test(text)) return type;
  // Invalid UTF-8 decodes to U+FFFD: call it binary rather than guess a charset.
  if (text.includes("\uFFFD")) return "application/octet-stream";
  return "text/plain";
}
