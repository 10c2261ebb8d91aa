/**
 * Slack's message syntax in Zulip's Markdown, as Zulip's Slack conversion
 * (zerver/data_import/slack_message_conversion.py) does it for incoming webhooks: links
 * and mailto links, then *bold*, ~strike~ and _italic_.
 */

/** <https://example.com> and <https://example.com|label>; the host needs a dot and a TLD. */
const LINK =
  /<(http:\/\/www\.|https:\/\/www\.|http:\/\/|https:\/\/|ftp:\/\/)?([a-z0-9]+([-.][a-z0-9]+)*)(\.)([a-z]{2,63}(:[0-9]{1,5})?)(\/[^>]*)?(\|)?(?:\|([^>]+))?>/g;

/** <mailto:a@b.c> or <mailto:a@b.c|a@b.c>: the address (Python's \w is Unicode-wide). */
const WORD = "\\p{L}\\p{N}_";
const MAILTO = new RegExp(
  `<((mailto:)?([${WORD}.-]+@[${WORD}.-]+(\\.[${WORD}]+)+))(\\|)?([${WORD}.-]+@[${WORD}.-]+(\\.[${WORD}]+)+)?>`,
  "gu",
);

export function replaceLinks(text: string): string {
  const linked = text.replace(LINK, (match) => {
    const inner = match.slice(1, -1);
    const bar = inner.indexOf("|");
    return bar < 0 ? inner : `[${inner.slice(bar + 1)}](${inner.slice(0, bar)})`;
  });
  return linked.replace(MAILTO, (_match, address: string) => address);
}

/**
 * A Slack emphasis marker pair around text: it must follow punctuation, a space, a symbol
 * or a line start (not a closing bracket, quote, backtick, @ or backslash) and precede
 * one of those or a line end, so mid-word markers stay as they are.
 */
function emphasis(marker: string): RegExp {
  // Only * needs escaping (unicode-mode patterns refuse needless escapes like \~).
  const m = marker === "*" ? "\\*" : marker;
  return new RegExp(
    `((?![${m}\`@\\\\\\p{Pf}\\p{Pe}])[\\p{P}\\p{Zs}\\p{S}]|^)${m}([^${m}]+)${m}` +
      `(?![${m}\`@\\\\\\p{Pi}\\p{Ps}])(?=[\\p{P}\\p{Zs}\\p{S}]|$)`,
    "gmu",
  );
}

const CONVERSIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [emphasis("*"), "**"],
  [emphasis("~"), "~~"],
  [emphasis("_"), "*"],
];

export function convertSlackFormatting(text: string): string {
  let out = text;
  for (const [pattern, zulip] of CONVERSIONS) {
    out = out.replace(
      pattern,
      (_match, before: string, inner: string) => `${before}${zulip}${inner}${zulip}`,
    );
  }
  return out;
}
