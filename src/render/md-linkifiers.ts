import type { StateCore, Token } from "markdown-it";
import { renderEnv } from "./context.js";
import { linkifierLinks } from "./linkifier-match.js";

/**
 * Zulip's LinkifierPattern: the organization's linkifiers turn matching text into links,
 * in order (an earlier linkifier's match wins over a later one's). Only plain text is
 * touched: never code, and never the text of a link (written or automatic). Runs after
 * markdown-it's linkify, so URLs are already links.
 */

/** Text longer than this is left as it is: a bound on the matching work per text run. */
const MAX_LINKIFIED_TEXT = 10_000;

function splitText(token: Token, state: StateCore, links: ReturnType<typeof linkifierLinks>): Token[] {
  const text = token.content;
  const out: Token[] = [];
  const textToken = (content: string) => {
    const t = new state.Token("text", "", 0);
    t.content = content;
    return t;
  };
  let last = 0;
  for (const link of links) {
    if (link.index > last) out.push(textToken(text.slice(last, link.index)));
    const open = new state.Token("link_open", "a", 1);
    open.attrs = [["href", link.url]];
    open.markup = "linkifier";
    out.push(open, textToken(link.text), new state.Token("link_close", "a", -1));
    last = link.index + link.text.length;
  }
  if (last < text.length) out.push(textToken(text.slice(last)));
  return out;
}

export function linkifierRule(state: StateCore): void {
  const linkifiers = renderEnv(state).ctx.linkifiers ?? [];
  if (linkifiers.length === 0) return;
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    const out: Token[] = [];
    let linkDepth = 0;
    for (const token of block.children) {
      if (token.type === "link_open") linkDepth++;
      if (token.type === "link_close") linkDepth--;
      if (token.type === "text" && linkDepth === 0 && token.content.length <= MAX_LINKIFIED_TEXT) {
        const links = linkifierLinks(token.content, linkifiers);
        if (links.length > 0) {
          out.push(...splitText(token, state, links));
          continue;
        }
      }
      out.push(token);
    }
    block.children = out;
  }
}
