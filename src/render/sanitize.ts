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

/** The allow-list pass itself (sanitize-html), whatever the input. */
export function sanitizeWithAllowList(html: string): string {
  // sanitize-html writes void elements XHTML-style (<br />); Zulip writes <br>.
  sanitizer ??= require("sanitize-html") as typeof sanitizeHtml;
  return sanitizer(html, OPTIONS).replace(/<(br|hr|img)\b([^>]*?) \/>/g, "<$1$2>");
}

export function sanitizeMessageHtml(html: string): string {
  return passesUnchanged(html) ? html : sanitizeWithAllowList(html);
}

// ---- the common case without the parser ----

/**
 * One token of the HTML most messages render to: text (no markup characters; an
 * ampersand only as an entity, as sanitize-html's escaping leaves it), or one of a few
 * exact tags. Attribute values are digits or plain words, so nothing in them needs
 * escaping or could name a scheme.
 */
const TOKEN = new RegExp(
  [
    "([^<>&]+|&[a-zA-Z0-9#]{1,20};)",
    "<(p|strong|em|del|code|br)>",
    "</(p|strong|em|del|code|span)>",
    '<(span) class="user-mention(?: silent)?" data-user-id="[0-9]+">',
    '<(span) class="user-group-mention(?: silent)?" data-user-group-id="[0-9]+">',
    '<(span) aria-label="[a-z0-9 _+-]+" class="emoji emoji-[0-9a-f-]+" role="img" title="[a-z0-9 _+-]+">',
  ].join("|"),
  "y",
);

/**
 * Whether the allow-list pass would give `html` back unchanged, decided without parsing
 * it: true only for a sequence of paragraphs holding text, line breaks and properly
 * nested inline tags from TOKEN, each of which the allow-list keeps as it is. Anything
 * else (another tag or attribute, a stray or unclosed tag, a block inside a paragraph,
 * which an HTML parser would close early) answers false and takes the full pass.
 */
export function passesUnchanged(html: string): boolean {
  const open: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < html.length) {
    const token = TOKEN.exec(html);
    if (token === null) return false;
    const [, text, start, end, mention, groupMention, emoji] = token;
    if (text !== undefined) continue;
    const opened = start ?? mention ?? groupMention ?? emoji;
    if (opened === "p") {
      if (open.length > 0) return false;
      open.push("p");
    } else if (opened !== undefined) {
      // Inline tags and line breaks only inside a paragraph.
      if (open.length === 0) return false;
      if (opened !== "br") open.push(opened);
    } else if (open.pop() !== end) return false;
  }
  return open.length === 0;
}
