/**
 * What a message might refer to, found without parsing (Zulip's possible_mentions,
 * possible_user_group_mentions, possible_linked_stream_names, possible_linked_topics,
 * content_has_emoji_syntax). RenderContext lookups are synchronous, so a caller that
 * reads the database scans the content first, loads just these, then renders. The sets
 * are supersets: syntax inside code is included, wildcards are not.
 */
export interface MessageReferences {
  /** Names from `@**name**` (matched case-insensitively by the renderer). */
  userNames: Set<string>;
  /** IDs from `@**name|id**` and `@**|id**`. */
  userIds: Set<number>;
  groupNames: Set<string>;
  channelNames: Set<string>;
  /** `#**channel>topic**` links, for `/with/<latest message id>`. */
  topics: Array<{ channelName: string; topic: string }>;
  /** Names in `:name:` syntax, for custom emoji. */
  emojiNames: Set<string>;
}

const USER_MENTIONS = /(?<![^\s'"({[/<])@_?\*\*([^*]+)\*\*/g;
const GROUP_MENTIONS = /(?<![^\s'"({[/<])@_?\*([^*]+)\*/g;
const CHANNEL_LINKS = /(?<![^\s'"({/<])#\*\*([^*]+)\*\*/g;
const TOPIC_LINKS = /(?<![^\s'"({/<])#\*\*([^*>]+)>([^*]*)\*\*/g;
const EMOJI = /:([\p{L}\p{N}_+-]+):/uy;
const WILDCARDS = new Set(["all", "everyone", "stream", "channel", "topic"]);
const ID_SYNTAX = /^(.+)?\|(\d+)$/s;

export function scanReferences(content: string): MessageReferences {
  const refs: MessageReferences = {
    userNames: new Set(),
    userIds: new Set(),
    groupNames: new Set(),
    channelNames: new Set(),
    topics: [],
    emojiNames: new Set(),
  };
  for (const [, text] of content.matchAll(USER_MENTIONS)) {
    if (WILDCARDS.has(text!)) continue;
    const idSyntax = ID_SYNTAX.exec(text!);
    if (idSyntax) refs.userIds.add(Number(idSyntax[2]));
    else refs.userNames.add(text!);
  }
  for (const [, name] of content.matchAll(GROUP_MENTIONS)) refs.groupNames.add(name!);
  for (const [, name] of content.matchAll(CHANNEL_LINKS)) {
    // `#**a>b**` names channel "a>b" or channel "a" with topic "b"; offer both.
    refs.channelNames.add(name!);
  }
  const seen = new Set<string>();
  for (const [, channelName, rawTopic] of content.matchAll(TOPIC_LINKS)) {
    refs.channelNames.add(channelName!);
    // A trailing @id makes it a message link, but a topic may end in "@123" too.
    const topics = [rawTopic!, rawTopic!.replace(/@\d+$/, "")];
    for (const topic of topics) {
      const key = JSON.stringify([channelName, topic]);
      if (seen.has(key)) continue;
      seen.add(key);
      refs.topics.push({ channelName: channelName!, topic });
    }
  }
  // Overlapping matches: ":a:b:" has candidates "a" and "b".
  for (let i = content.indexOf(":"); i !== -1; i = content.indexOf(":", i + 1)) {
    EMOJI.lastIndex = i;
    const m = EMOJI.exec(content);
    if (m) refs.emojiNames.add(m[1]!);
  }
  return refs;
}
