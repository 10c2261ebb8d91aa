import { createRequire } from "node:module";
import type markdownItModule from "markdown-it";
import type { MarkdownIt } from "markdown-it";

// Loaded on first use, not at startup: most processes (and an idle server) never render,
// and the engine costs about 10 MB of memory.
const require = createRequire(import.meta.url);

/**
 * Zulip-flavoured Markdown to HTML. Raw HTML in the source is escaped (html: false), so
 * the output is safe by construction; links must be http(s), mailto or relative.
 * Message-specific syntax (mentions, channel links, emoji) is added by the messages
 * renderer on top of this engine.
 */
export function createMarkdownEngine(): MarkdownIt {
  const markdownIt = require("markdown-it") as typeof markdownItModule;
  const md = markdownIt({ html: false, linkify: true, breaks: true, typographer: false });
  md.validateLink = (url) => /^(https?:|mailto:|\/|#)/i.test(url.trim());
  return md;
}

let engine: MarkdownIt | null = null;

/** Renders descriptions and profile values (no message-only syntax). */
export function renderMarkdown(source: string): string {
  if (source.trim() === "") return "";
  engine ??= createMarkdownEngine();
  return engine.render(source).replace(/\n$/, "");
}
