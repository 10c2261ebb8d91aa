/**
 * Slack's message markup ("mrkdwn") -> Zulip Markdown, following Zulip's
 * zerver/data_import/slack_message_conversion.py: *bold* -> **bold**, _italic_ -> *italic*,
 * ~strike~ -> ~~strike~~ (only at word edges, as Slack formats them), <!channel> and friends
 * -> @**all**, <#C…|name> -> #**name**, <@U…> -> @**Full Name**, <url|text> -> [text](url),
 * <mailto:…> -> mailto:…. Beyond Zulip's converter: code spans and blocks are left as
 * written (Zulip's converter would bold a `*` inside code), a one-line ```block``` gets the
 * fences on lines of their own (Zulip Markdown needs that), and Slack's &lt; &gt; &amp;
 * escapes become the characters they stand for.
 */

export interface MarkupContext {
  /** Slack user id -> the Zulip mention text ("Full Name", or "Full Name|id" when names repeat) and id. */
  users: Map<string, { mention: string; id: number }>;
  /** Slack channel id -> Zulip channel name. */
  channels: Map<string, string>;
}

export interface ConvertedMarkup {
  content: string;
  mentionedUserIds: number[];
  hasLink: boolean;
}

// Zulip's edges of a formatted span: before it punctuation, space or a symbol (or the
// line's start) other than the marker itself, `, @, \ and closing brackets/quotes; after it
// the same kinds of character (or the line's end) other than opening brackets/quotes.
const span = (marker: string) => {
  // Unicode-mode patterns refuse needless escapes: only "*" needs one, and only outside a class.
  const m = marker === "*" ? "\\*" : marker;
  return new RegExp(
    `((?![${marker}\`@\\\\\\p{Pf}\\p{Pe}])[\\p{P}\\p{Zs}\\p{S}]|^)${m}([^${marker}\\n]+)${m}(?=(?![${marker}\`@\\\\\\p{Pi}\\p{Ps}])(?:[\\p{P}\\p{Zs}\\p{S}]|$))`,
    "gmu",
  );
};
const BOLD = span("*");
const STRIKE = span("~");
const ITALIC = span("_");

function convertFormatting(text: string): string {
  return text
    .replace(BOLD, (_m, before: string, inner: string) => `${before}**${inner}**`)
    .replace(STRIKE, (_m, before: string, inner: string) => `${before}~~${inner}~~`)
    .replace(ITALIC, (_m, before: string, inner: string) => `${before}*${inner}*`);
}

const decodeEntities = (text: string) =>
  text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** Everything in a <…> of Slack's: mentions, channel links, links, mailto. */
const ANGLE = /<([^<>\s][^<>]*)>/g;

function convertAngle(whole: string, inner: string, ctx: MarkupContext, found: ConvertedMarkup): string {
  const bar = inner.indexOf("|");
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? null : inner.slice(bar + 1);
  if (target.startsWith("!")) {
    const word = target.slice(1);
    return word === "everyone" || word === "channel" || word === "here" ? "@**all**" : (label ?? whole);
  }
  if (target.startsWith("@")) {
    const user = ctx.users.get(target.slice(1));
    if (!user) return whole;
    found.mentionedUserIds.push(user.id);
    return `@**${user.mention}**`;
  }
  if (target.startsWith("#")) {
    const name = ctx.channels.get(target.slice(1)) ?? label;
    return name === null ? whole : `#**${name}**`;
  }
  if (/^mailto:/i.test(target)) {
    found.hasLink = true;
    return target;
  }
  if (/^(https?|ftp):\/\//i.test(target)) {
    found.hasLink = true;
    const url = decodeEntities(target);
    return label === null || label === "" ? url : `[${decodeEntities(label)}](${url})`;
  }
  return whole;
}

// A <…> construct stands aside as a private-use placeholder while *_~ are converted, so
// that an underscore in a URL or a user id is never read as italics.
const HOLD = "\uE000";
const HELD = /\uE000(\d+)\uE001/g;

function convertProse(text: string, ctx: MarkupContext, found: ConvertedMarkup): string {
  const held: string[] = [];
  const withHolds = text.replace(ANGLE, (whole, inner: string) => {
    held.push(convertAngle(whole, inner, ctx, found));
    return `${HOLD}${held.length - 1}\uE001`;
  });
  if (!found.hasLink && /\b(https?|ftp):\/\/\S/i.test(withHolds)) found.hasLink = true;
  return decodeEntities(convertFormatting(withHolds)).replace(HELD, (_m, i: string) => held[Number(i)]!);
}

/** Code blocks (```…```) and spans (`…`) pass through untouched. */
const CODE = /```([\s\S]*?)```|`[^`\n]+`/g;

export function convertSlackMarkup(text: string, ctx: MarkupContext): ConvertedMarkup {
  const found: ConvertedMarkup = { content: "", mentionedUserIds: [], hasLink: false };
  let out = "";
  let last = 0;
  for (const match of text.matchAll(CODE)) {
    out += convertProse(text.slice(last, match.index), ctx, found);
    if (match[1] !== undefined) {
      const body = decodeEntities(match[1]).replace(/^\n/, "").replace(/\n$/, "");
      const before = out === "" || out.endsWith("\n") ? "" : "\n";
      out += `${before}\`\`\`\n${body}\n\`\`\``;
      const next = text[match.index + match[0].length];
      if (next !== undefined && next !== "\n") out += "\n";
    } else {
      out += decodeEntities(match[0]);
    }
    last = match.index + match[0].length;
  }
  out += convertProse(text.slice(last), ctx, found);
  found.content = out;
  return found;
}
