import type { StateInline } from "markdown-it";
import { renderEnv, type RenderEnv } from "./context.js";
import { EMOJI_SYNTAX_RE, emojiByName } from "./emoji-markup.js";
import {
  CHANNEL_LINK_RE,
  GROUP_MENTION_RE,
  MESSAGE_LINK_RE,
  TOPIC_LINK_RE,
  USER_MENTION_RE,
  channelLinkAllowedAt,
  mentionAllowedAt,
  resolveChannel,
  resolveGroup,
  resolveUserMention,
} from "./md-mentions.js";
import { parseTimestamp } from "./timestamp.js";

/**
 * Inline syntax as Zulip's Python-Markdown patterns see it, on markdown-it's inline
 * parser. Zulip applies its patterns one after another over the whole text, highest
 * priority first (code, ***, mentions, channel links, <time:>, group mentions, links,
 * URLs, **, *, ~~), each hiding what it matched from the ones after it. markdown-it scans
 * left to right instead, so the emphasis rules below match against a copy of the text in
 * which every higher-priority construct is masked: `**a @**Some One** b**` is one strong
 * span around a mention, and `*a **b* c**` has no emphasis, exactly as in Zulip.
 */

const MASK = "\u0002";
const mask = (match: string) => MASK.repeat(match.length);

// The patterns, as sticky regexes to match at a position.
const CODE_SPAN_RE = /(`+)(.+?)(?<!`)\1(?!`)/y;
const STRONG_EM_RE = /\*\*\*(?!\s)([^*^\n]+)(?<!\s)\*\*\*/y;
const STRONG_RE = /\*\*([^\n]+?)\*\*/y;
const EM_RE = /\*(?!\s)([^*^\n]+)(?<!\s)\*/y;
const DEL_RE = /~~([^~\n]+?)~~(?!~)/y;
const TIMESTAMP_RE = /<time:([^>]*?)>/y;

// The same patterns for masking (global), plus rough forms of links and bare URLs.
const global = (re: RegExp) => new RegExp(re.source, re.flags.replace("y", "g"));
const CODE_SPANS = /(?<!\\)(`+)(.+?)(?<!`)\1(?!`)/g;
const STRONG_EMS = global(STRONG_EM_RE);
const STRONGS = global(STRONG_RE);
const EMS = global(EM_RE);
const TIMESTAMPS = global(TIMESTAMP_RE);
const LINKS = /!?\[[^\]\n]*\]\([^)\n]*\)/g;
const URLS = /(?<![^\s'"(,:<])https?:\/\/[\p{L}\p{N}_.:@-]+(?:\/[^\s"]*?)?(?=[!:;?),.'">]*(?:$|\s))/gu;
const USER_MENTIONS = global(USER_MENTION_RE);
const GROUP_MENTIONS = global(GROUP_MENTION_RE);
const MESSAGE_LINKS = global(MESSAGE_LINK_RE);
const TOPIC_LINKS = global(TOPIC_LINK_RE);
const CHANNEL_LINKS = global(CHANNEL_LINK_RE);

type MaskLevel = "strong_em" | "strong" | "em" | "del";
const masks = new WeakMap<StateInline, Map<MaskLevel, string>>();

function maskMentions(src: string, env: RenderEnv): string {
  let out = src.replace(
    USER_MENTIONS,
    (m: string, _s: string, name: string, offset: number, whole: string) =>
      mentionAllowedAt(whole, offset) && resolveUserMention(name, env) ? mask(m) : m,
  );
  for (const re of [MESSAGE_LINKS, TOPIC_LINKS, CHANNEL_LINKS]) {
    out = out.replace(re, (m: string, name: string, ...rest: unknown[]) => {
      const offset = rest[rest.length - 2] as number;
      const whole = rest[rest.length - 1] as string;
      return channelLinkAllowedAt(whole, offset) && resolveChannel(name, env) ? mask(m) : m;
    });
  }
  out = out.replace(TIMESTAMPS, mask);
  return out.replace(GROUP_MENTIONS, (m: string, _s: string, name: string, offset: number, whole: string) =>
    mentionAllowedAt(whole, offset) && resolveGroup(name, env) ? mask(m) : m,
  );
}

/** The inline source with everything of higher priority than `level` masked. */
function maskedSource(state: StateInline, level: MaskLevel): string {
  let cache = masks.get(state);
  if (!cache) masks.set(state, (cache = new Map<MaskLevel, string>()));
  let text = cache.get(level);
  if (text !== undefined) return text;
  switch (level) {
    case "strong_em":
      text = state.src.replace(CODE_SPANS, mask);
      break;
    case "strong":
      text = maskMentions(maskedSource(state, "strong_em").replace(STRONG_EMS, mask), renderEnv(state))
        .replace(LINKS, mask)
        .replace(URLS, mask);
      break;
    case "em":
      text = maskedSource(state, "strong").replace(STRONGS, mask);
      break;
    case "del":
      text = maskedSource(state, "em").replace(EMS, mask);
      break;
  }
  cache.set(level, text);
  return text;
}

function execAt(re: RegExp, text: string, pos: number, max: number): RegExpExecArray | null {
  re.lastIndex = pos;
  const m = re.exec(text);
  return m && re.lastIndex <= max ? m : null;
}

/** Pushes `tags` around the inline content in [start, end), parsed recursively. */
function wrapInline(state: StateInline, tags: string[], start: number, end: number, markup: string): void {
  for (const tag of tags) state.push(`${tag}_open`, tag, 1).markup = markup;
  const oldPos = state.pos;
  const oldMax = state.posMax;
  state.pos = start;
  state.posMax = end;
  state.md.inline.tokenize(state);
  state.pos = oldPos;
  state.posMax = oldMax;
  for (const tag of [...tags].reverse()) state.push(`${tag}_close`, tag, -1).markup = markup;
}

/** `***x***`, `**x**`, `*x*`: single-line, asterisks only (`_x_` is not emphasis in Zulip). */
export function emphasisRule(state: StateInline, silent: boolean): boolean {
  const pos = state.pos;
  if (state.src.charCodeAt(pos) !== 0x2a /* * */) return false;
  const attempts: Array<[MaskLevel, RegExp, string[], number]> = [
    ["strong_em", STRONG_EM_RE, ["strong", "em"], 3],
    ["strong", STRONG_RE, ["strong"], 2],
    ["em", EM_RE, ["em"], 1],
  ];
  for (const [level, re, tags, width] of attempts) {
    const m = execAt(re, maskedSource(state, level), pos, state.posMax);
    if (!m) continue;
    const end = pos + m[0].length;
    if (!silent) wrapInline(state, tags, pos + width, end - width, "*".repeat(width));
    state.pos = end;
    return true;
  }
  return false;
}

/** `~~x~~` -> <del>. */
export function strikethroughRule(state: StateInline, silent: boolean): boolean {
  const pos = state.pos;
  if (state.src.charCodeAt(pos) !== 0x7e /* ~ */) return false;
  if (pos > 0 && state.src.charCodeAt(pos - 1) === 0x7e) return false;
  const m = execAt(DEL_RE, maskedSource(state, "del"), pos, state.posMax);
  if (!m) return false;
  const end = pos + m[0].length;
  if (!silent) wrapInline(state, ["del"], pos + 2, end - 2, "~~");
  state.pos = end;
  return true;
}

/**
 * Code spans keep their spaces and stay on one line; a backtick after a backslash does
 * not open one. When a run has no partner, only its first backtick is text, so ``` ``a` ```
 * is a backtick and then code, as Zulip's regex finds it.
 */
export function backtickRule(state: StateInline, silent: boolean): boolean {
  const pos = state.pos;
  if (state.src.charCodeAt(pos) !== 0x60 /* ` */) return false;
  if (pos > 0 && state.src.charCodeAt(pos - 1) === 0x5c /* \ */) return false;
  const m = execAt(CODE_SPAN_RE, state.src.slice(0, state.posMax), pos, state.posMax);
  if (!m) {
    if (!silent) state.pending += "`";
    state.pos = pos + 1;
    return true;
  }
  if (!silent) {
    const token = state.push("code_inline", "code", 0);
    token.markup = m[1]!;
    token.content = m[2]!;
  }
  state.pos = pos + m[0].length;
  return true;
}

/** Every newline is a <br> (nl2br); spaces around it are kept, as in Zulip. */
export function newlineRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x0a) return false;
  if (!silent) state.push("softbreak", "br", 0);
  state.pos++;
  return true;
}

/** `<time:...>` -> <time datetime="...">, or an error span. */
export function timestampRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3c /* < */) return false;
  const m = execAt(TIMESTAMP_RE, state.src, state.pos, state.posMax);
  if (!m) return false;
  if (!silent) {
    const env = renderEnv(state);
    const token = state.push("zulip_time", "time", 0);
    token.content = m[1]!;
    token.meta = { datetime: parseTimestamp(m[1]!, env.ctx.now?.() ?? new Date()) };
  }
  state.pos += m[0].length;
  return true;
}

/** `:name:` -> an emoji, when the name is known. */
export function emojiRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3a /* : */) return false;
  const m = execAt(EMOJI_SYNTAX_RE, state.src, state.pos, state.posMax);
  if (!m) return false;
  const env = renderEnv(state);
  const emoji = emojiByName(m[1]!, (name) => env.ctx.realmEmoji(name));
  if (!emoji) return false;
  if (!silent) state.push("zulip_emoji", "span", 0).meta = emoji;
  state.pos += m[0].length;
  return true;
}

type InlineRule = (state: StateInline, silent: boolean) => boolean;

/**
 * Markdown links, with Zulip's changes: the label is plain text (no Markdown inside it),
 * and an empty label shows the target. The target itself is checked by the engine's
 * normalizeLink/validateLink (sanitizeUrl), so a rejected target stays text.
 */
export function zulipLinkRule(link: InlineRule): InlineRule {
  return (state, silent) => {
    const start = state.pos;
    if (state.src.charCodeAt(start) !== 0x5b /* [ */) return false;
    const before = state.tokens.length;
    if (!link(state, silent)) return false;
    if (silent) return true;
    const labelEnd = state.md.helpers.parseLinkLabel(state, start, true);
    const label = labelEnd > start ? state.src.slice(start + 1, labelEnd) : "";
    const openIndex = state.tokens.findIndex((t, i) => i >= before && t.type === "link_open");
    if (openIndex === -1) return true;
    const closeIndex = state.tokens.findIndex((t, i) => i > openIndex && t.type === "link_close");
    const text = new state.Token("text", "", 0);
    text.content = label;
    state.tokens.splice(openIndex + 1, closeIndex - openIndex - 1, text);
    if (label.trim() === "") state.tokens[openIndex]!.meta = { emptyLabel: true };
    return true;
  };
}
