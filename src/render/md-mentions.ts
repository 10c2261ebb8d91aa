import type { StateInline } from "markdown-it";
import {
  renderEnv,
  type LinkableChannel,
  type MentionableGroup,
  type RenderEnv,
  type ResolvedUserMention,
} from "./context.js";
import { channelNarrowUrl, topicNarrowUrl } from "./urls.js";

/**
 * Mentions and channel links (zerver/lib/mention.py, zerver/lib/markdown UserMentionPattern,
 * UserGroupMentionPattern, StreamPattern, StreamTopicPattern, StreamTopicMessagePattern).
 * Syntax that names nobody the sender can see is left alone (and so may still render as
 * other Markdown, e.g. `@**nobody**` as "@" + bold, as in Zulip).
 */

export type MentionMeta =
  | { kind: "user"; userId: number; name: string; silent: boolean }
  | { kind: "channel-wildcard" | "topic-wildcard"; word: string; silent: boolean }
  | { kind: "group"; groupId: number; name: string; silent: boolean };

export type ChannelLinkMeta =
  | { kind: "channel"; channelId: number; channelName: string; href: string }
  | { kind: "topic"; channelId: number; channelName: string; topic: string; href: string }
  | {
      kind: "message";
      channelId: number;
      channelName: string;
      topic: string;
      messageId: number;
      href: string;
    };

// zerver/lib/mention.py BEFORE_MENTION_ALLOWED_REGEX, and the stricter variant for
// syntax that produces links (no "[", so a channel link cannot start inside a link label).
const BEFORE_MENTION = /[\s'"({[/<]/u;
const BEFORE_LINK_PRODUCING_MENTION = /[\s'"({/<]/u;

export const USER_MENTION_RE = /@(_?)\*\*([^*]+)\*\*/y;
export const GROUP_MENTION_RE = /@(_?)\*([^*]+)\*/y;
export const MESSAGE_LINK_RE = /#\*\*([^*>]+)>([^*]*)@(\d+)\*\*/y;
export const TOPIC_LINK_RE = /#\*\*([^*>]+)>([^*]*)\*\*/y;
export const CHANNEL_LINK_RE = /#\*\*([^*]+)\*\*/y;

const CHANNEL_WILDCARDS = new Set(["all", "everyone", "stream", "channel"]);
const TOPIC_WILDCARDS = new Set(["topic"]);
const ID_SYNTAX_RE = /^(.+)?\|(\d+)$/s;

export function mentionAllowedAt(src: string, pos: number): boolean {
  return pos === 0 || BEFORE_MENTION.test(src[pos - 1]!);
}

export function channelLinkAllowedAt(src: string, pos: number): boolean {
  return pos === 0 || BEFORE_LINK_PRODUCING_MENTION.test(src[pos - 1]!);
}

/** What `@**text**` refers to: a wildcard, one user, or nothing (unknown or ambiguous). */
export function resolveUserMention(text: string, env: RenderEnv): ResolvedUserMention | null {
  const cached = env.users.get(text);
  if (cached !== undefined) return cached;
  let result: ResolvedUserMention | null = null;
  if (CHANNEL_WILDCARDS.has(text)) result = { kind: "channel-wildcard" };
  else if (TOPIC_WILDCARDS.has(text)) result = { kind: "topic-wildcard" };
  else {
    const idSyntax = ID_SYNTAX_RE.exec(text);
    if (idSyntax) {
      // @**Name|id** must name that user exactly; @**|id** needs only the ID.
      const user = env.ctx.userById(Number(idSyntax[2]));
      if (user && (idSyntax[1] === undefined || idSyntax[1] === user.full_name))
        result = { kind: "user", user };
    } else {
      const users = env.ctx.userByFullName(text);
      if (users.length === 1) result = { kind: "user", user: users[0]! };
    }
  }
  env.users.set(text, result);
  return result;
}

export function resolveGroup(name: string, env: RenderEnv): MentionableGroup | null {
  let group = env.groups.get(name);
  if (group === undefined) {
    const found = env.ctx.groupByName(name);
    // Deactivated groups cannot be mentioned: their syntax stays text.
    group = found && !found.deactivated ? found : null;
    env.groups.set(name, group);
  }
  return group;
}

export function resolveChannel(name: string, env: RenderEnv): LinkableChannel | null {
  let channel = env.channels.get(name);
  if (channel === undefined) {
    channel = env.ctx.channelByName(name) ?? null;
    env.channels.set(name, channel);
  }
  return channel;
}

function execAt(re: RegExp, src: string, pos: number, max: number): RegExpExecArray | null {
  re.lastIndex = pos;
  const m = re.exec(src);
  return m && re.lastIndex <= max ? m : null;
}

/** The user mention at `pos`, resolved, as token metadata; null when there is none. */
export function userMentionAt(src: string, pos: number, max: number, env: RenderEnv) {
  const m = execAt(USER_MENTION_RE, src, pos, max);
  if (!m) return null;
  const resolved = resolveUserMention(m[2]!, env);
  if (!resolved) return null;
  let silent = m[1] === "_";
  let meta: MentionMeta;
  if (resolved.kind === "user") {
    // Mentioning a deactivated user never notifies anyone.
    if (!resolved.user.is_active) silent = true;
    meta = { kind: "user", userId: resolved.user.id, name: resolved.user.full_name, silent };
  } else {
    meta = { kind: resolved.kind, word: m[2]!, silent };
  }
  return { meta, end: pos + m[0].length };
}

export function groupMentionAt(src: string, pos: number, max: number, env: RenderEnv) {
  const m = execAt(GROUP_MENTION_RE, src, pos, max);
  if (!m) return null;
  const group = resolveGroup(m[2]!, env);
  if (!group) return null;
  const meta: MentionMeta = { kind: "group", groupId: group.id, name: group.name, silent: m[1] === "_" };
  return { meta, end: pos + m[0].length };
}

/** `#**channel**`, `#**channel>topic**` or `#**channel>topic@id**` at `pos`. */
export function channelLinkAt(src: string, pos: number, max: number, env: RenderEnv) {
  const message = execAt(MESSAGE_LINK_RE, src, pos, max);
  if (message) {
    const channel = resolveChannel(message[1]!, env);
    if (channel) {
      const topic = message[2]!;
      const messageId = Number(message[3]);
      const href = `${topicNarrowUrl(channel.id, channel.name, topic)}/near/${messageId}`;
      const meta: ChannelLinkMeta = {
        kind: "message",
        channelId: channel.id,
        channelName: channel.name,
        topic,
        messageId,
        href,
      };
      return { meta, end: pos + message[0].length };
    }
  }
  const topicLink = execAt(TOPIC_LINK_RE, src, pos, max);
  if (topicLink) {
    const channel = resolveChannel(topicLink[1]!, env);
    if (channel) {
      const topic = topicLink[2]!;
      const latest = env.ctx.latestMessageIdInTopic?.(channel.id, topic);
      let href = topicNarrowUrl(channel.id, channel.name, topic);
      if (latest !== undefined) href += `/with/${latest}`;
      const meta: ChannelLinkMeta = {
        kind: "topic",
        channelId: channel.id,
        channelName: channel.name,
        topic,
        href,
      };
      return { meta, end: pos + topicLink[0].length };
    }
  }
  const channelLink = execAt(CHANNEL_LINK_RE, src, pos, max);
  if (channelLink) {
    const channel = resolveChannel(channelLink[1]!, env);
    if (channel) {
      const href = channelNarrowUrl(channel.id, channel.name);
      const meta: ChannelLinkMeta = {
        kind: "channel",
        channelId: channel.id,
        channelName: channel.name,
        href,
      };
      return { meta, end: pos + channelLink[0].length };
    }
  }
  return null;
}

export function userMentionRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x40 /* @ */) return false;
  if (!mentionAllowedAt(state.src, state.pos)) return false;
  const env = renderEnv(state);
  const found =
    userMentionAt(state.src, state.pos, state.posMax, env) ??
    groupMentionAt(state.src, state.pos, state.posMax, env);
  if (!found) return false;
  if (!silent) state.push("zulip_mention", "span", 0).meta = found.meta;
  state.pos = found.end;
  return true;
}

export function channelLinkRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x23 /* # */) return false;
  if (!channelLinkAllowedAt(state.src, state.pos)) return false;
  const found = channelLinkAt(state.src, state.pos, state.posMax, renderEnv(state));
  if (!found) return false;
  if (!silent) state.push("zulip_channel_link", "a", 0).meta = found.meta;
  state.pos = found.end;
  return true;
}
