import { unicodeEmojiCode, unicodeEmojiName } from "./emoji-table.js";

/**
 * Emoji in messages: `:name:` syntax and emoji characters typed directly. Names and code
 * points come from Zulip's emoji table (emoji-table.ts), so `:smile:` is 1f604 and `:cat:`
 * is 1f408.
 */
export type EmojiMarkup =
  { kind: "unicode"; name: string; code: string } | { kind: "image"; name: string; src: string };

export const ZULIP_EMOJI_URL = "/static/generated/emoji/images/emoji/unicode/zulip.png";

/** Zulip's EMOJI_REGEX `:[\w\-\+]+:` (Python's \w is Unicode-aware). */
export const EMOJI_SYNTAX_RE = /:([\p{L}\p{N}_+-]+):/uy;

/** Custom emoji first, then the built-in :zulip:, then Unicode emoji; else null. */
export function emojiByName(
  name: string,
  realmEmoji: (name: string) => { source_url: string } | undefined,
): EmojiMarkup | null {
  const custom = realmEmoji(name);
  if (custom) return { kind: "image", name, src: custom.source_url };
  if (name === "zulip") return { kind: "image", name, src: ZULIP_EMOJI_URL };
  const code = unicodeEmojiCode(name);
  return code === undefined ? null : { kind: "unicode", name, code };
}

// Zulip's POSSIBLE_EMOJI_RE, from https://unicode.org/reports/tr51/#EBNF_and_Regex.
const ELEMENT = String.raw`\p{Emoji}(?:\p{Emoji_Modifier}|\uFE0F\u20E3?|[\u{E0020}-\u{E007E}]+\u{E007F})?`;
const POSSIBLE_EMOJI = String.raw`\p{RI}\p{RI}|${ELEMENT}(?:\u200D(?:\p{RI}\p{RI}|${ELEMENT}))*`;
export const POSSIBLE_EMOJI_RE = new RegExp(POSSIBLE_EMOJI, "gu");
/** Characters that are text unless followed by U+FE0F (digits, ©, ↔ ...) are left alone. */
const TEXT_PRESENTATION_RE = /^\P{Emoji_Presentation}\u20E3?$/u;
/** A cheap pre-check: every emoji sequence that can render contains a non-ASCII character. */
export const MAY_CONTAIN_EMOJI = /[^\u0000-\u007f]/; // eslint-disable-line no-control-regex

/** The emoji an emoji-character sequence stands for, or null when it is not in the table. */
export function emojiBySequence(sequence: string): EmojiMarkup | null {
  if (TEXT_PRESENTATION_RE.test(sequence)) return null;
  const hex = (text: string) =>
    Array.from(text, (c) => c.codePointAt(0)!.toString(16).padStart(4, "0")).join("-");
  // Zulip's codes are unqualified (no U+FE0F).
  const code = hex(sequence.replace(/\uFE0F/g, ""));
  const name = unicodeEmojiName(code);
  return name === undefined ? null : { kind: "unicode", name, code };
}
