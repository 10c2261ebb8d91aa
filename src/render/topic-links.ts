import type { Linkifier } from "./context.js";
import { applyInOrder, linkifierCandidates, type Match, type TopicLink } from "./linkifier-match.js";
import { messageEngine } from "./message-engine.js";

/**
 * A message's `topic_links` (zerver/lib/markdown topic_links): the organization's
 * linkifiers applied to the topic, plus the URLs written in it. Matches never overlap;
 * earlier linkifiers win, then linkifiers over raw URLs, then the leftmost match.
 */

export type { Linkifier, TopicLink };
export { expandUrlTemplate } from "./linkifier-match.js";

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

export function topicLinks(topic: string, linkifiers: readonly Linkifier[]): TopicLink[] {
  const matches = linkifierCandidates(topic, linkifiers);
  matches.push(...rawUrlMatches(topic));
  return applyInOrder(matches).map(({ url, text }) => ({ url, text }));
}
