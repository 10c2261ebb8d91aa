import markdownIt, { type MarkdownIt } from "markdown-it";

/**
 * Zulip-flavoured Markdown to HTML. Raw HTML in the source is escaped (html: false), so
 * the output is safe by construction; links must be http(s), mailto or relative.
 * Message-specific syntax (mentions, channel links, emoji) is added by the messages
 * renderer on top of this engine.
 */
export function createMarkdownEngine(): MarkdownIt {
  const md = markdownIt({ html: false, linkify: true, breaks: true, typographer: false });
  md.validateLink = (url) => /^(https?:|mailto:|\/|#)/i.test(url.trim());
  return md;
}

const engine = createMarkdownEngine();

/** Renders descriptions and profile values (no message-only syntax). */
export function renderMarkdown(source: string): string {
  if (source.trim() === "") return "";
  return engine.render(source).replace(/\n$/, "");
}
