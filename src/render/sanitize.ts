import { createRequire } from "node:module";
import type sanitizeHtml from "sanitize-html";

// Loaded on first use, not at startup (with its CSS parser it costs about 18 MB).
const require = createRequire(import.meta.url);
let sanitizer: typeof sanitizeHtml | null = null;
import { ALLOWED_LINK_SCHEMES } from "./urls.js";

/**
 * Defence in depth for rendered messages: whatever the renderer emits must pass an
 * allow-list of exactly the tags, attributes and classes it can produce. For the
 * renderer's own output this pass changes nothing (the tests check every case); it is
 * there so that a bug in a rule cannot put a script, an event handler or a javascript:
 * URL into a message.
 */

const ALIGN_STYLES = new Set(["text-align: left;", "text-align: right;", "text-align: center;"]);

/** Table cells keep a style attribute only if it is exactly a table alignment. */
const cellStyle: sanitizeHtml.Transformer = (tagName, attribs) => {
  const { style, ...rest } = attribs;
  return { tagName, attribs: style !== undefined && ALIGN_STYLES.has(style) ? { ...rest, style } : rest };
};

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    "p",
    "br",
    "strong",
    "em",
    "del",
    "a",
    "code",
    "pre",
    "div",
    "span",
    "blockquote",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "img",
    "time",
  ],
  allowedAttributes: {
    a: ["href", "class", "data-stream-id", "title"],
    span: ["class", "data-user-id", "data-user-group-id", "aria-label", "role", "title"],
    div: ["class", "data-code-language", "aria-hidden"],
    img: [
      "alt",
      "class",
      "src",
      "title",
      "data-original-dimensions",
      "data-original-content-type",
      "data-animated",
    ],
    ol: ["start"],
    time: ["datetime"],
    th: ["style"],
    td: ["style"],
  },
  allowedClasses: {
    a: ["stream", "stream-topic", "message-link"],
    span: [
      "emoji",
      "emoji-*",
      "user-mention",
      "user-group-mention",
      "topic-mention",
      "channel-wildcard-mention",
      "silent",
      "timestamp-error",
    ],
    div: ["codehilite", "spoiler-block", "spoiler-header", "spoiler-content", "message_inline_image"],
    img: ["emoji", "image-loading-placeholder"],
  },
  transformTags: { th: cellStyle, td: cellStyle },
  allowedSchemes: [...ALLOWED_LINK_SCHEMES],
  allowedSchemesByTag: { img: ["http", "https"] },
  allowedSchemesAppliedToAttributes: ["href", "src"],
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
  parseStyleAttributes: false,
  // Keep the renderer's escaping (e.g. &#39; in code) byte for byte.
  parser: { decodeEntities: false },
};

export function sanitizeMessageHtml(html: string): string {
  // sanitize-html writes void elements XHTML-style (<br />); Zulip writes <br>.
  sanitizer ??= require("sanitize-html") as typeof sanitizeHtml;
  return sanitizer(html, OPTIONS).replace(/<(br|hr|img)\b([^>]*?) \/>/g, "<$1$2>");
}
