import { messageEngine } from "./message-engine.js";

/**
 * A message's `topic_links` (zerver/lib/markdown topic_links): the organization's
 * linkifiers applied to the topic, plus the URLs written in it. Matches never overlap;
 * earlier linkifiers win, then linkifiers over raw URLs, then the leftmost match.
 */

export interface Linkifier {
  /** A regular expression (Zulip's re2 syntax; `(?P<name>...)` groups are accepted). */
  pattern: string;
  /** An RFC 6570 URL template over the pattern's named groups, e.g. "https://github.com/x/y/issues/{id}". */
  url_template: string;
}

export interface TopicLink {
  url: string;
  text: string;
}

interface Match extends TopicLink {
  index: number;
  precedence: number | null;
}

const compiled = new Map<string, RegExp | null>();

/** Zulip's prepare_linkifier_pattern: match only after a boundary, and not inside a word. */
function linkifierRegex(pattern: string): RegExp | null {
  let re = compiled.get(pattern);
  if (re === undefined) {
    const source = pattern.replace(/\(\?P</g, "(?<");
    try {
      re = new RegExp(
        String.raw`(?<linkifier_before_match>^|\s|\u0085|\p{Z}|['"(,:<])(?<linkifier_actual_match>${source})(?<linkifier_after_match>$|[^\p{L}\p{N}])`,
        "gu",
      );
    } catch {
      re = null;
    }
    compiled.set(pattern, re);
  }
  return re;
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
      out += encodeURIComponent(char.replace(/[\uD800-\uDFFF]/, "\uFFFD")).replace(
        /[!'()*]/g,
        (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
      );
    }
  }
  return out;
}

/** RFC 6570 levels 1-2 ({var}, {+var}, {#var}), which is what linkifier templates use. */
export function expandUrlTemplate(template: string, values: Record<string, string | undefined>): string {
  return template.replace(/\{([+#]?)([^}]*)\}/g, (_m, operator: string, names: string) => {
    const parts = names
      .split(",")
      .map((name) => values[name.trim()])
      .filter((v): v is string => v !== undefined)
      .map((v) => encodeTemplateValue(v, operator !== ""));
    if (parts.length === 0) return "";
    return (operator === "#" ? "#" : "") + parts.join(",");
  });
}

function linkifierMatches(topic: string, linkifier: Linkifier, precedence: number): Match[] {
  const re = linkifierRegex(linkifier.pattern);
  if (!re) return [];
  const matches: Match[] = [];
  let pos = 0;
  while (pos < topic.length) {
    re.lastIndex = pos;
    const m = re.exec(topic);
    if (!m?.groups) break;
    const before = m.groups.linkifier_before_match ?? "";
    const after = m.groups.linkifier_after_match ?? "";
    const text = m.groups.linkifier_actual_match ?? "";
    matches.push({
      url: expandUrlTemplate(linkifier.url_template, m.groups),
      text,
      index: m.index + before.length,
      precedence,
    });
    // Give back the character after the match: it may start the next one.
    pos = Math.max(m.index + m[0].length - after.length, pos + 1);
  }
  return matches;
}

function rawUrlMatches(topic: string): Match[] {
  const matches: Match[] = [];
  // Like Zulip, look for one URL in each stretch between separators.
  const splitter = /[ !;),'"]/g;
  let pos = 0;
  while (pos < topic.length) {
    splitter.lastIndex = pos;
    const next = splitter.exec(topic);
    const end = next ? next.index : topic.length;
    const found = messageEngine().linkify.match(topic.slice(pos, end))?.[0];
    if (found && found.schema !== "mailto:" && !(found.schema === "" && found.raw.includes("@"))) {
      const url = found.schema === "" ? `https://${found.raw}` : found.raw;
      matches.push({ url, text: found.raw, index: pos + found.index, precedence: null });
    }
    pos = end + 1;
  }
  return matches;
}

const overlaps = (a: Match, b: Match) =>
  (b.index <= a.index && a.index < b.index + b.text.length) ||
  (a.index <= b.index && b.index < a.index + a.text.length);

export function topicLinks(topic: string, linkifiers: readonly Linkifier[]): TopicLink[] {
  const matches = linkifiers.flatMap((linkifier, i) => linkifierMatches(topic, linkifier, i));
  matches.sort((a, b) => a.precedence! - b.precedence! || a.index - b.index);
  matches.push(...rawUrlMatches(topic));
  const applied: Match[] = [];
  for (const match of matches) {
    if (applied.every((other) => !overlaps(other, match))) applied.push(match);
  }
  applied.sort((a, b) => a.index - b.index);
  return applied.map(({ url, text }) => ({ url, text }));
}
