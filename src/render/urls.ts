/**
 * URL rules of Zulip's Markdown (zerver/lib/markdown sanitize_url, url_encoding): which
 * link targets are allowed, how narrow URLs are spelled, and what counts as an image or
 * an uploaded file.
 */

/** https://html.spec.whatwg.org/multipage/system-state.html#safelisted-scheme */
const HTML_SAFELISTED_SCHEMES = [
  "bitcoin",
  "geo",
  "im",
  "irc",
  "ircs",
  "magnet",
  "mailto",
  "matrix",
  "mms",
  "news",
  "nntp",
  "openpgp4fpr",
  "sip",
  "sms",
  "smsto",
  "ssh",
  "tel",
  "urn",
  "webcal",
  "wtai",
  "xmpp",
];

/** The schemes a link may use; anything else is left as plain text. */
export const ALLOWED_LINK_SCHEMES: readonly string[] = [
  "http",
  "https",
  "ftp",
  "file",
  ...HTML_SAFELISTED_SCHEMES,
];
const allowedSchemes = new Set(ALLOWED_LINK_SCHEMES);

const SCHEME_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
// What Python's urlsplit strips before parsing (so "java\tscript:" is still javascript:).
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const LEADING_C0_OR_SPACE = /^[\u0000-\u0020]+/;
const TAB_OR_NEWLINE = /[\t\r\n]/g;

/**
 * Zulip's sanitize_url: the href for a link target, or null when the target must not be
 * linked. Scheme-less targets become http:// links (or mailto: when they look like an
 * email address); site-relative paths and fragments are kept as they are.
 */
export function sanitizeUrl(raw: string): string | null {
  const url = raw.replace(LEADING_C0_OR_SPACE, "").replace(TAB_OR_NEWLINE, "").replace(/ /g, "%20");
  const match = SCHEME_RE.exec(url);
  if (!match) {
    if (url.startsWith("//")) return sanitizeUrl(`http:${url}`);
    const pathEnd = url.search(/[?#]/);
    const path = pathEnd === -1 ? url : url.slice(0, pathEnd);
    if (path.includes("@")) return `mailto:${url}`;
    if (path.startsWith("/")) return url;
    if (path === "" && url.startsWith("#")) return url;
    if (url === "") return null;
    return sanitizeUrl(`http://${url}`);
  }
  const scheme = match[1]!.toLowerCase();
  if (!allowedSchemes.has(scheme)) return null;
  return scheme + url.slice(scheme.length);
}

/** Links into this organization's own web app or uploads become relative, as in Zulip. */
export function rewriteLocalLink(href: string, realmUrl: string): string {
  const prefix = `${realmUrl.replace(/\/+$/, "")}/`;
  if (href.startsWith(`${prefix}#`) || href.startsWith(`${prefix}user_uploads/`)) {
    return href.slice(prefix.length);
  }
  return href;
}

// Lone surrogates cannot be percent-encoded; they are replaced like invalid UTF-8.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Zulip's hash_util_encode (the web app's encodeHashComponent): percent-encode every
 * byte except letters, digits and `-_~`, then write `%` as `.`, so "a b.c" -> "a.20b.2Ec".
 */
export function hashUtilEncode(value: string): string {
  return encodeURIComponent(value.replace(LONE_SURROGATE, "\uFFFD"))
    .replace(/[!'()*.]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%/g, ".");
}

/** "9-announce" in channel narrows: the ID, then the name with spaces as dashes. */
export function encodeChannel(channelId: number, channelName: string): string {
  return `${channelId}-${hashUtilEncode(channelName.replace(/ /g, "-"))}`;
}

export function channelNarrowUrl(channelId: number, channelName: string): string {
  return `/#narrow/channel/${encodeChannel(channelId, channelName)}`;
}

export function topicNarrowUrl(channelId: number, channelName: string, topic: string): string {
  return `${channelNarrowUrl(channelId, channelName)}/topic/${hashUtilEncode(topic)}`;
}

const IMAGE_EXTENSIONS = [".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp"];

function pathOf(href: string): { host: string; path: string } {
  const withoutFragment = href.split("#", 1)[0]!.split("?", 1)[0]!;
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/]*)(.*)$/.exec(withoutFragment);
  if (authority) return { host: authority[1]!.toLowerCase(), path: authority[2]! };
  return { host: "", path: withoutFragment };
}

/** Zulip's is_image: the link's path ends with an image extension. */
export function isImageUrl(href: string): boolean {
  const { host, path } = pathOf(href);
  if (host === "pasteboard.co") return false;
  const lower = path.toLowerCase();
  return IMAGE_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

/**
 * The path_id of an uploaded file the link points to (`/user_uploads/<path_id>` on this
 * server, absolute or relative), or null. The caller checks it names a real attachment.
 */
export function attachmentPathId(href: string, realmUrl: string): string | null {
  let url: URL;
  let realm: URL;
  try {
    realm = new URL(`${realmUrl.replace(/\/+$/, "")}/`);
    url = new URL(href, realm);
  } catch {
    return null;
  }
  if (url.host !== realm.host) return null;
  if (!url.pathname.startsWith("/user_uploads/")) return null;
  // The path as the message has it: markdown-it and URL %-encode non-ASCII file names
  // ("Straße.pdf"), which path_ids keep raw (Zulip reads the link unencoded).
  let pathId: string;
  try {
    pathId = decodeURIComponent(url.pathname.slice("/user_uploads/".length));
  } catch {
    return null;
  }
  return pathId === "" ? null : pathId;
}
