import { client } from "../app.js";
import type { TopicEntry } from "../model/topics.js";

/** A suggestion: what the list shows, and the text that replaces the typed token. */
export interface Suggestion {
  key: string;
  label: string;
  detail?: string;
  insert: string;
  emoji?: { name: string; code: string; type: string };
}

/** The token being typed before the caret that asks for suggestions, and where it starts. */
export interface Token {
  kind: "person" | "channel" | "topic" | "emoji";
  query: string;
  start: number;
  /** For topics: the channel they are in. */
  streamId?: number;
}

export function tokenAt(text: string, caret: number): Token | null {
  const before = text.slice(0, caret);
  // "#**channel>topic", or Zulip's topic jump: ">" typed after a completed "#**channel** ".
  let match = /(^|\s)#\*\*([^*>]+)(?:\*\* ?)?>([^*\n]*)$/.exec(before);
  if (match) {
    const channel = client.world.channelByName(match[2]!);
    if (channel)
      return {
        kind: "topic",
        query: match[3]!,
        start: before.length - match[0].length + match[1]!.length,
        streamId: channel.stream_id,
      };
  }
  match = /(^|\s)@(?:\*\*|_\*\*|_)?([^\s*@]{0,30}(?: [^\s*@]{0,30})?)$/.exec(before);
  if (match)
    return { kind: "person", query: match[2]!, start: before.length - match[0].length + match[1]!.length };
  match = /(^|\s)#(?:\*\*)?([^\s*#]{0,40})$/.exec(before);
  if (match)
    return { kind: "channel", query: match[2]!, start: before.length - match[0].length + match[1]!.length };
  match = /(^|\s):([a-z0-9_+-]{2,})$/i.exec(before);
  if (match)
    return {
      kind: "emoji",
      query: match[2]!.toLowerCase(),
      start: before.length - match[0].length + match[1]!.length,
    };
  return null;
}

const matchesQuery = (text: string, query: string) => {
  const q = query.toLowerCase();
  return (
    text
      .toLowerCase()
      .split(/[\s_-]+/)
      .some((word) => word.startsWith(q)) || text.toLowerCase().startsWith(q)
  );
};

export function suggestions(
  token: Token,
  emojiNames: Array<{ name: string; code: string }>,
  topics: readonly TopicEntry[],
): Suggestion[] {
  switch (token.kind) {
    case "person": {
      const people = [...client.world.users.value.values()]
        .filter(
          (u) =>
            u.is_active &&
            (matchesQuery(u.full_name, token.query) ||
              u.email.toLowerCase().startsWith(token.query.toLowerCase())),
        )
        .sort((a, b) => Number(a.is_bot) - Number(b.is_bot) || a.full_name.localeCompare(b.full_name))
        .slice(0, 8)
        .map((u): Suggestion => ({
          key: `u${u.user_id}`,
          label: u.full_name,
          detail: u.email,
          insert: `@**${u.full_name}|${u.user_id}** `,
        }));
      const wildcards = ["all", "everyone", "channel", "topic"]
        .filter((w) => w.startsWith(token.query.toLowerCase()) && token.query.length > 0)
        .map((w): Suggestion => ({
          key: `w${w}`,
          label: `@${w}`,
          detail: "Notify everyone",
          insert: `@**${w}** `,
        }));
      const groups = [...client.world.groups.value.values()]
        .filter((g) => !g.is_system_group && !g.deactivated && matchesQuery(g.name, token.query))
        .slice(0, 4)
        .map((g): Suggestion => ({
          key: `g${g.id}`,
          label: g.name,
          detail: "User group",
          insert: `@*${g.name}* `,
        }));
      return [...people, ...groups, ...wildcards].slice(0, 10);
    }
    case "channel":
      return [...client.world.channels.value.values()]
        .filter((c) => !c.is_archived && matchesQuery(c.name, token.query))
        .sort(
          (a, b) =>
            Number(client.world.subscriptions.value.has(b.stream_id)) -
              Number(client.world.subscriptions.value.has(a.stream_id)) || a.name.localeCompare(b.name),
        )
        .slice(0, 8)
        .map((c) => ({
          key: `c${c.stream_id}`,
          label: `#${c.name}`,
          detail: c.description,
          insert: `#**${c.name}** `,
        }));
    case "topic": {
      const channel = client.world.channelName(token.streamId!) ?? "";
      return topics
        .filter((t) => t.name.toLowerCase().includes(token.query.toLowerCase()))
        .slice(0, 8)
        .map((t) => ({
          key: `t${t.name}`,
          label: t.name,
          detail: `#${channel}`,
          insert: `#**${channel}>${t.name}** `,
        }));
    }
    case "emoji": {
      const custom = [...client.world.customEmoji.value.values()]
        .filter((e) => e.name.includes(token.query))
        .map((e): Suggestion => ({
          key: `r${e.name}`,
          label: `:${e.name}:`,
          insert: `:${e.name}: `,
          emoji: { name: e.name, code: String(e.id), type: "realm_emoji" },
        }));
      const unicode = emojiNames
        .filter((e) => e.name.startsWith(token.query) || e.name.includes(`_${token.query}`))
        .slice(0, 10)
        .map((e): Suggestion => ({
          key: `e${e.name}`,
          label: `:${e.name}:`,
          insert: `:${e.name}: `,
          emoji: { name: e.name, code: e.code, type: "unicode_emoji" },
        }));
      return [...custom, ...unicode].slice(0, 10);
    }
  }
}
