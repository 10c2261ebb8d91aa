import type { RE2JS } from "re2js";
import type { Linkifier } from "./context.js";
import { requiredLiteral } from "./linkifier-literal.js";
import { compileRe2 } from "./linkifier-regex.js";

/**
 * Linkifier matching, shared by message content (md-linkifiers.ts) and topic_links:
 * Zulip's prepare_linkifier_pattern and RFC 6570 URL template expansion.
 */

export interface TopicLink {
  url: string;
  text: string;
}

export interface Match extends TopicLink {
  index: number;
  precedence: number | null;
}

/** A compiled linkifier, and text every match contains ("" when none is known). */
interface CompiledLinkifier {
  regex: RE2JS | null;
  literal: string;
}

const compiled = new Map<string, CompiledLinkifier>();

/**
 * Zulip's prepare_linkifier_pattern: match only after a boundary, and not inside a word.
 * Compiled with RE2 as Zulip does (linear time); a pattern RE2 refuses matches nothing.
 */
function linkifierRegex(pattern: string): CompiledLinkifier {
  let re = compiled.get(pattern);
  if (re === undefined) {
    const regex = compileRe2(
      String.raw`(?P<linkifier_before_match>^|\s|\x{85}|\pZ|['"\(,:<])(?P<linkifier_actual_match>${pattern})(?P<linkifier_after_match>$|[^\pL\pN])`,
    ).regex;
    re = { regex, literal: regex ? requiredLiteral(pattern) : "" };
    compiled.set(pattern, re);
  }
  return re;
}

/** Whether a linkifier may match in `text`: false skips RE2 (see linkifier-literal.ts). */
export function mayMatch(pattern: string, text: string): boolean {
  const { regex, literal } = linkifierRegex(pattern);
  return regex !== null && text.includes(literal);
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encodeTemplateValue(value: string, allowReserved: boolean): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (allowReserved && c === "%" && /^[0-9A-Fa-f]{2}$/.test(value.slice(i + 1, i + 3))) out += c;
    else if (UNRESERVED.test(c) || (allowReserved && RESERVED.test(c))) out += c;
    else {
      const codePoint = value.codePointAt(i)!;
      const char = String.fromCodePoint(codePoint);
      if (char.length === 2) i++;
      // Only a lone surrogate becomes U+FFFD (encodeURIComponent throws on it); a pair is one character.
      out += encodeURIComponent(char.length === 1 ? char.replace(/[\uD800-\uDFFF]/, "\uFFFD") : char).replace(
        /[!'()*]/g,
        (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
      );
    }
  }
  return out;
}

/** RFC 6570 operators: [first, separator, named, empty-named suffix, allow reserved]. */
const OPERATORS: Record<string, [string, string, boolean, string, boolean]> = {
  "": ["", ",", false, "", false],
  "+": ["", ",", false, "", true],
  "#": ["#", ",", false, "", true],
  ".": [".", ".", false, "", false],
  "/": ["/", "/", false, "", false],
  ";": [";", ";", true, "", false],
  "?": ["?", "&", true, "=", false],
  "&": ["&", "&", true, "=", false],
};

/** RFC 6570 up to level 3 for string values (prefixes too), which is what linkifier templates use. */
export function expandUrlTemplate(template: string, values: Record<string, string | undefined>): string {
  return template.replace(/\{([+#./;?&]?)([^}]*)\}/g, (_m, operator: string, specs: string) => {
    const [first, separator, named, ifEmpty, allowReserved] = OPERATORS[operator]!;
    const parts: string[] = [];
    for (const spec of specs.split(",")) {
      const [, name = "", prefix] = /^([^:*]*)(?::(\d+))?\*?$/.exec(spec.trim()) ?? [];
      let value = values[name];
      if (value === undefined) continue;
      if (prefix !== undefined) value = Array.from(value).slice(0, Number(prefix)).join("");
      const encoded = encodeTemplateValue(value, allowReserved);
      parts.push(named ? (encoded === "" ? `${name}${ifEmpty}` : `${name}=${encoded}`) : encoded);
    }
    return parts.length === 0 ? "" : first + parts.join(separator);
  });
}

function linkifierMatches(topic: string, linkifier: Linkifier, precedence: number): Match[] {
  if (!mayMatch(linkifier.pattern, topic)) return [];
  const re = linkifierRegex(linkifier.pattern).regex!;
  const matches: Match[] = [];
  const matcher = re.matcher(topic);
  let pos = 0;
  while (pos < topic.length && matcher.find(pos)) {
    const groups: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(matcher.getNamedGroups())) groups[name] = value ?? undefined;
    const text = groups.linkifier_actual_match ?? "";
    const index = matcher.start("linkifier_actual_match");
    matches.push({ url: expandUrlTemplate(linkifier.url_template, groups), text, index, precedence });
    // Give back the character after the match: it may start the next one.
    pos = Math.max(matcher.start("linkifier_after_match"), pos + 1);
  }
  return matches;
}

const overlaps = (a: Match, b: Match) =>
  (b.index <= a.index && a.index < b.index + b.text.length) ||
  (a.index <= b.index && b.index < a.index + a.text.length);

/** Where linkifiers match in a text, without overlaps: earlier linkifiers win, then the leftmost. */
export function linkifierLinks(
  text: string,
  linkifiers: readonly Linkifier[],
): Array<TopicLink & { index: number }> {
  return applyInOrder(linkifierCandidates(text, linkifiers));
}

export function linkifierCandidates(text: string, linkifiers: readonly Linkifier[]): Match[] {
  const matches = linkifiers.flatMap((linkifier, i) => linkifierMatches(text, linkifier, i));
  return matches.sort((a, b) => a.precedence! - b.precedence! || a.index - b.index);
}

export function applyInOrder(matches: Match[]): Match[] {
  const applied: Match[] = [];
  for (const match of matches) {
    if (applied.every((other) => !overlaps(other, match))) applied.push(match);
  }
  return applied.sort((a, b) => a.index - b.index);
}
