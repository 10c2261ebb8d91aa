import type { MarkdownIt, StateBlock, StateInline } from "markdown-it";
import { linkifierRule } from "./md-linkifiers.js";
import { createRenderEnv, type RenderContext, type RenderEnv } from "./context.js";
import { createMarkdownEngine } from "./markdown.js";
import { fenceRule, listRule, paragraphRule, zulipBlockquoteRule } from "./md-blocks.js";
import { installRenderer } from "./md-html.js";
import {
  backtickRule,
  emojiRule,
  emphasisRule,
  newlineRule,
  strikethroughRule,
  timestampRule,
  zulipLinkRule,
} from "./md-inline.js";
import { channelLinkRule, userMentionRule } from "./md-mentions.js";
import { postProcessRule } from "./md-post.js";
import { sanitizeUrl } from "./urls.js";
import { renderUploadPreview, uploadPreviewRule } from "./upload-previews.js";

/**
 * The markdown-it instance for messages, configured once: Zulip's dialect (see the rule
 * modules) on top of the base engine (raw HTML escaped, URLs linked, newlines as <br>).
 */

type Rule<T> = (state: T, ...rest: never[]) => boolean;

/** A built-in rule's function, to wrap it (markdown-it has no public getter). */
function builtinRule<T extends Rule<never>>(ruler: unknown, name: string): T {
  const rules = (ruler as { __rules__: Array<{ name: string; fn: T }> }).__rules__;
  const rule = rules.find((r) => r.name === name);
  if (!rule) throw new Error(`markdown-it has no rule named ${name}`);
  return rule.fn;
}

function buildEngine(): MarkdownIt {
  const md = createMarkdownEngine();
  // Zulip links bare domains (example.com) and user:password@host URLs too.
  md.linkify.set({ fuzzyLink: true, fuzzyEmail: true, fuzzyIP: false, urlAuth: true });
  md.normalizeLink = (url) => sanitizeUrl(url) ?? url;
  md.validateLink = (url) => sanitizeUrl(url) !== null;
  md.normalizeLinkText = (text) => text;

  // Not in Zulip: reference links, setext headings, HTML, backslash escapes, images,
  // <angle> autolinks; CommonMark emphasis is replaced by Zulip's.
  md.disable(["reference", "lheading", "html_block", "html_inline", "escape", "image", "autolink"]);
  md.disable(["emphasis", "strikethrough"]);

  const blockquote = builtinRule<(s: StateBlock, a: number, b: number, c: boolean) => boolean>(
    md.block.ruler,
    "blockquote",
  );
  md.block.ruler.at("fence", fenceRule, { alt: ["paragraph", "reference", "blockquote", "list"] });
  md.block.ruler.at("blockquote", zulipBlockquoteRule(blockquote), {
    alt: ["paragraph", "reference", "blockquote", "list"],
  });
  md.block.ruler.at("list", listRule, { alt: ["paragraph", "reference", "blockquote"] });
  md.block.ruler.at("paragraph", paragraphRule);

  const link = builtinRule<(s: StateInline, silent: boolean) => boolean>(md.inline.ruler, "link");
  md.inline.ruler.at("link", zulipLinkRule(link));
  md.inline.ruler.at("backticks", backtickRule);
  md.inline.ruler.at("newline", newlineRule);
  md.inline.ruler.before("link", "zulip_mention", userMentionRule);
  md.inline.ruler.before("link", "zulip_channel_link", channelLinkRule);
  md.inline.ruler.before("link", "zulip_timestamp", timestampRule);
  md.inline.ruler.before("link", "zulip_emphasis", emphasisRule);
  md.inline.ruler.before("link", "zulip_strikethrough", strikethroughRule);
  md.inline.ruler.after("entity", "zulip_emoji", emojiRule);

  md.core.ruler.push("zulip_linkifiers", linkifierRule);
  md.core.ruler.push("zulip_post", postProcessRule);
  md.core.ruler.push("zulip_upload_previews", uploadPreviewRule);
  installRenderer(md);
  md.renderer.rules.zulip_upload_preview = renderUploadPreview;
  return md;
}

let engine: MarkdownIt | null = null;

/** The messages engine, built on first use (see createMarkdownEngine). */
export function messageEngine(): MarkdownIt {
  return (engine ??= buildEngine());
}

export interface RawRendering {
  /** The HTML before the sanitizer pass. */
  html: string;
  env: RenderEnv;
}

/** Renders without the final sanitizer pass (renderMessage adds it). */
export function renderRaw(content: string, ctx: RenderContext): RawRendering {
  const env = createRenderEnv(ctx);
  if (content.trim() === "") return { html: "", env };
  const md = messageEngine();
  const tokens = md.parse(content, env);
  const html = md.renderer.render(tokens, md.options, env).replace(/\n+$/, "");
  return { html, env };
}
