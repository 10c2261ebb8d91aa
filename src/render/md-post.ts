import type { StateCore, Token } from "markdown-it";
import { renderEnv, type FoundInMessage, type RenderEnv } from "./context.js";
import { MAY_CONTAIN_EMOJI, POSSIBLE_EMOJI_RE, emojiBySequence } from "./emoji-markup.js";
import type { ChannelLinkMeta, MentionMeta } from "./md-mentions.js";
import { attachmentPathId, isImageUrl, rewriteLocalLink } from "./urls.js";

/**
 * The pass after inline parsing: Zulip's rules that depend on where things are
 * (mentions in quotes are silent; no image previews from quotes; no emoji inside link
 * text), plus what the message turns out to contain (mentions, links, images, uploads).
 */

/** Zulip's list_of_tlds leaves these out: they are file extensions far more often. */
const FALSE_POSITIVE_TLDS = new Set(["java", "md", "mov", "py", "zip"]);

function isFalsePositiveDomain(label: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:/i.test(label) || label.includes("@")) return false;
  const host = label.split(/[/?#:]/, 1)[0]!;
  return FALSE_POSITIVE_TLDS.has(host.slice(host.lastIndexOf(".") + 1).toLowerCase());
}

const URL_MAY_PRECEDE = /[\s'"(,:<]$/u;
const URL_MAY_FOLLOW = /^[!:;?),.'">]*(?:\s|$)/u;

/**
 * Whether an automatic link (markdown-it's linkify) is one Zulip makes: not a file name
 * such as readme.md, and, where text touches it, after whitespace or one of `'"(,:<` and
 * before whitespace, possibly after punctuation (so `src=http://x.js<b>` stays text).
 */
function keepAutoLink(children: Token[], open: number, close: number): boolean {
  const label = children[open + 1]?.type === "text" ? children[open + 1]!.content : "";
  if (isFalsePositiveDomain(label)) return false;
  const before = children[open - 1];
  if (before?.type === "text" && before.content !== "" && !URL_MAY_PRECEDE.test(before.content)) return false;
  const after = children[close + 1];
  if (after?.type === "text" && !URL_MAY_FOLLOW.test(after.content)) {
    // Punctuation up to a line break or the end is fine too.
    const next = children[close + 2];
    const trailing = /^[!:;?),.'">]*$/.test(after.content);
    if (!trailing || (next !== undefined && next.type !== "softbreak")) return false;
  }
  return true;
}

const TRAILING_PUNCTUATION = /[!:;?,.'">]+$/;

/** Zulip's URLs never end in punctuation: `see http://x.org/a:` links "http://x.org/a". */
function trimTrailingPunctuation(
  children: Token[],
  open: number,
  close: number,
  TokenClass: typeof Token,
): void {
  const text = children[open + 1];
  if (close !== open + 2 || text?.type !== "text") return;
  const trailing = TRAILING_PUNCTUATION.exec(text.content)?.[0];
  if (!trailing || trailing.length === text.content.length) return;
  text.content = text.content.slice(0, -trailing.length);
  const href = String(children[open]!.attrGet("href") ?? "");
  if (href.endsWith(trailing)) children[open]!.attrSet("href", href.slice(0, -trailing.length));
  const after = children[close + 1];
  if (after?.type === "text") after.content = trailing + after.content;
  else {
    const token = new TokenClass("text", "", 0);
    token.content = trailing;
    children.splice(close + 1, 0, token);
  }
}

/** Drops the automatic links Zulip would not make (their text stays). */
function filterAutoLinks(children: Token[], TokenClass: typeof Token): Token[] {
  const drop = new Set<number>();
  for (let i = 0; i < children.length; i++) {
    if (children[i]!.type !== "link_open" || children[i]!.markup !== "linkify") continue;
    let close = i + 1;
    while (close < children.length && children[close]!.type !== "link_close") close++;
    trimTrailingPunctuation(children, i, close, TokenClass);
    if (!keepAutoLink(children, i, close)) {
      drop.add(i);
      drop.add(close);
    }
    i = close;
  }
  return drop.size === 0 ? children : children.filter((_t, i) => !drop.has(i));
}

function splitEmoji(token: Token, TokenClass: typeof Token): Token[] {
  const text = token.content;
  const out: Token[] = [];
  let last = 0;
  for (const match of text.matchAll(POSSIBLE_EMOJI_RE)) {
    const emoji = emojiBySequence(match[0]);
    if (!emoji) continue;
    if (match.index > last) {
      const before = new TokenClass("text", "", 0);
      before.content = text.slice(last, match.index);
      out.push(before);
    }
    const emojiToken = new TokenClass("zulip_emoji", "span", 0);
    emojiToken.meta = emoji;
    out.push(emojiToken);
    last = match.index + match[0].length;
  }
  if (out.length === 0) return [token];
  if (last < text.length) {
    const after = new TokenClass("text", "", 0);
    after.content = text.slice(last);
    out.push(after);
  }
  return out;
}

function noteMention(mention: MentionMeta, found: FoundInMessage): void {
  if (mention.silent) return;
  switch (mention.kind) {
    case "user":
      found.userIds.add(mention.userId);
      break;
    case "group":
      found.groupIds.add(mention.groupId);
      break;
    case "channel-wildcard":
      found.channelWildcard = true;
      break;
    case "topic-wildcard":
      found.topicWildcard = true;
      break;
  }
}

function processInline(
  children: Token[],
  inQuote: boolean,
  env: RenderEnv,
  TokenClass: typeof Token,
): Token[] {
  const { found, ctx } = env;
  const out: Token[] = [];
  let linkDepth = 0;
  children = filterAutoLinks(children, TokenClass);
  for (let i = 0; i < children.length; i++) {
    const token = children[i]!;
    switch (token.type) {
      case "link_open": {
        linkDepth++;
        const href = rewriteLocalLink(String(token.attrGet("href") ?? ""), ctx.realmUrl);
        token.attrs = [["href", href]];
        if ((token.meta as { emptyLabel?: boolean } | null)?.emptyLabel) children[i + 1]!.content = href;
        found.link = true;
        if (!inQuote && isImageUrl(href)) found.image = true;
        const pathId = attachmentPathId(href, ctx.realmUrl);
        if (pathId !== null) found.attachmentPathIds.push(pathId);
        break;
      }
      case "link_close":
        linkDepth--;
        break;
      case "zulip_mention": {
        const mention = token.meta as MentionMeta;
        // Zulip silences every mention inside a quote: quoting must not notify anyone again.
        if (inQuote) mention.silent = true;
        noteMention(mention, found);
        break;
      }
      case "zulip_channel_link":
        found.link = true;
        found.channelIds.add((token.meta as ChannelLinkMeta).channelId);
        break;
      case "text":
        if (linkDepth === 0 && MAY_CONTAIN_EMOJI.test(token.content)) {
          out.push(...splitEmoji(token, TokenClass));
          continue;
        }
        break;
    }
    out.push(token);
  }
  return out;
}

export function postProcessRule(state: StateCore): void {
  const env = renderEnv(state);
  let quoteDepth = 0;
  for (const token of state.tokens) {
    switch (token.type) {
      case "blockquote_open":
        quoteDepth++;
        break;
      case "blockquote_close":
        quoteDepth--;
        break;
      case "th_open":
      case "td_open": {
        // Python-Markdown's tables write the alignment as `text-align: left;`.
        const align = /text-align:\s*(left|right|center)/.exec(String(token.attrGet("style") ?? ""));
        token.attrs = align ? [["style", `text-align: ${align[1]};`]] : null;
        break;
      }
      case "inline":
        if (token.children) token.children = processInline(token.children, quoteDepth > 0, env, state.Token);
        break;
    }
  }
}
