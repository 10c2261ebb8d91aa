import type { StateCore, Token } from "markdown-it";
import { renderEnv, type UploadPreview } from "./context.js";

/**
 * Previews of uploaded images in rendered messages (Zulip's InlineInterestingLinkProcessor
 * for /user_uploads links, and zerver/lib/thumbnail.py's markup): a
 * `<div class="message_inline_image">` after the paragraph that links the image, showing
 * its thumbnail, or a loading placeholder until the thumbnail exists (then the message is
 * rewritten: rewriteThumbnailedImages).
 */

export type { UploadPreview };

export const LOADING_PLACEHOLDER_SRC = "/static/images/loading/loader-black.svg";
const UPLOAD_PREFIX = "/user_uploads/";
/** Zulip's INLINE_PREVIEW_LIMIT_PER_MESSAGE: more previewable links than this, no previews. */
const PREVIEW_LIMIT = 24;

const escapeAttr = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The <img> of a preview; attributes in Zulip's (alphabetical) order. */
export function previewImgHtml(preview: UploadPreview): string {
  const dims = `data-original-dimensions="${preview.width}x${preview.height}"`;
  const type = `data-original-content-type="${escapeAttr(preview.contentType)}"`;
  if (preview.url === null) {
    return `<img class="image-loading-placeholder" ${type} ${dims} src="${LOADING_PLACEHOLDER_SRC}">`;
  }
  const animated = preview.animated ? 'data-animated="true" ' : "";
  return `<img ${animated}${type} ${dims} src="${escapeAttr(preview.url)}">`;
}

function previewDivHtml(href: string, title: string | null, preview: UploadPreview): string {
  const titleAttr = title === null ? "" : ` title="${escapeAttr(title)}"`;
  return `<div class="message_inline_image"><a href="${escapeAttr(href)}"${titleAttr}>${previewImgHtml(preview)}</a></div>`;
}

interface FoundLink {
  href: string;
  title: string | null;
  preview: UploadPreview;
  /** Index of the token after which the preview goes; -1: at the end of the message. */
  after: number;
  /** The paragraph holds nothing but this link: Zulip drops the paragraph. */
  soleParagraph: number | null;
}

function linkText(children: Token[], open: number): { text: string; close: number } {
  let text = "";
  let close = open + 1;
  while (close < children.length && children[close]!.type !== "link_close") {
    text += children[close]!.content;
    close++;
  }
  return { text, close };
}

/** The core rule: runs after Zulip's post-processing, when links are final. */
export function uploadPreviewRule(state: StateCore): void {
  const { ctx, found } = renderEnv(state);
  if (!ctx.uploadPreview) return;
  const tokens = state.tokens;
  const links: FoundLink[] = [];
  const seen = new Set<string>();
  let quoteDepth = 0;
  let previewable = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type === "blockquote_open") quoteDepth++;
    if (token.type === "blockquote_close") quoteDepth--;
    if (token.type !== "inline" || !token.children || quoteDepth > 0) continue;
    const inParagraph = tokens[i - 1]?.type === "paragraph_open";
    const children = token.children;
    let nesting = 0;
    for (let j = 0; j < children.length; j++) {
      const child = children[j]!;
      if (child.type === "link_open") {
        previewable++;
        const href = String(child.attrGet("href") ?? "");
        const { text, close } = linkText(children, j);
        if (href.startsWith(UPLOAD_PREFIX) && !seen.has(href)) {
          seen.add(href);
          const preview = ctx.uploadPreview(href.slice(UPLOAD_PREFIX.length));
          if (preview) {
            const urlEqText = text === href;
            const direct = inParagraph && nesting === 0;
            const sole = direct && !tokens[i - 1]!.hidden && children.length === 3 && urlEqText;
            links.push({
              href,
              title: urlEqText ? null : text,
              preview,
              after: direct ? i + 1 : -1,
              soleParagraph: sole ? i - 1 : null,
            });
          }
        }
        j = close;
      } else if (child.nesting === 1) nesting++;
      else if (child.nesting === -1) nesting--;
    }
  }
  if (links.length === 0 || previewable > PREVIEW_LIMIT) return;
  found.image = true;
  // Insert from the end so indexes stay valid; previews of one paragraph keep their order.
  const atEnd = links.filter((l) => l.after === -1);
  for (const link of atEnd) tokens.push(previewToken(state, link));
  const inPlace = links.filter((l) => l.after !== -1);
  for (let k = inPlace.length - 1; k >= 0; k--) {
    const link = inPlace[k]!;
    const sameParagraphBefore = inPlace.slice(0, k).filter((l) => l.after === link.after).length;
    tokens.splice(link.after + 1 + sameParagraphBefore, 0, previewToken(state, link));
  }
  const drop = new Set(links.flatMap((l) => (l.soleParagraph === null ? [] : [l.soleParagraph])));
  if (drop.size > 0) {
    state.tokens = tokens.filter((_t, index) => {
      for (const start of drop) if (index >= start && index <= start + 2) return false;
      return true;
    });
  }
}

function previewToken(state: StateCore, link: FoundLink): Token {
  const token = new state.Token("zulip_upload_preview", "div", 0);
  token.content = previewDivHtml(link.href, link.title, link.preview);
  token.block = true;
  return token;
}

/** Renderer rule for the preview token. */
export const renderUploadPreview = (tokens: Token[], idx: number) => `${tokens[idx]!.content}\n`;

/**
 * Zulip's rewrite_thumbnailed_images: puts thumbnails made since a message was rendered
 * into its HTML. Returns the new HTML, or null when nothing changed.
 */
export function rewriteThumbnailedImages(
  html: string,
  previews: ReadonlyMap<string, UploadPreview>,
): string | null {
  let changed = false;
  const out = html.replace(
    /(<div class="message_inline_image"><a href="\/user_uploads\/([^"]+)"[^>]*>)(<img class="image-loading-placeholder"[^>]*>)/g,
    (whole, open: string, pathId: string) => {
      const preview = previews.get(pathId.replace(/&amp;/g, "&"));
      if (!preview || preview.url === null) return whole;
      changed = true;
      return open + previewImgHtml(preview);
    },
  );
  return changed ? out : null;
}
