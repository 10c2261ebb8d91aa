import { DEFAULT_EMPTY_TOPIC_DISPLAY_NAME } from "./realm-limits.js";
import { encodeChannel, hashUtilEncode } from "../render/urls.js";

/**
 * How the Notification Bot's messages point at other messages (Zulip's url_encoding,
 * topic_link_util and markdown helpers): links, message link syntax, times and fences.
 */

/** Zulip's datetime_to_global_time: `<time:2024-08-06T17:00:00+00:00>`. */
export const globalTime = (unixSeconds: number) =>
  `<time:${new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00")}>`;

/** Zulip's pm_message_url: the conversation's participants, `-group` for three or more. */
export function directMessageUrl(
  realmUrl: string,
  participantIds: Iterable<number>,
  messageId: number,
): string {
  const ids = [...new Set(participantIds)].sort((a, b) => a - b);
  const slug = ids.join(",") + (ids.length >= 3 ? "-group" : "");
  return `${realmUrl}/#narrow/dm/${slug}/near/${messageId}`;
}

/** Zulip's stream_message_url: the message in its topic. */
export function channelMessageUrl(
  realmUrl: string,
  channel: { id: number; name: string },
  topic: string,
  messageId: number,
): string {
  return (
    `${realmUrl}/#narrow/channel/${encodeChannel(channel.id, channel.name)}` +
    `/topic/${hashUtilEncode(topic)}/near/${messageId}`
  );
}

/** Names that would break `#**channel>topic@id**` (Zulip's will_produce_broken_stream_topic_link). */
const BROKEN_LINK = /[`>*&[\]]|\$\$/;
const LINK_ESCAPES: Record<string, string> = {
  "`": "&#96;",
  ">": "&gt;",
  "*": "&#42;",
  "&": "&amp;",
  $$: "&#36;&#36;",
  "[": "&#91;",
  "]": "&#93;",
};
const escapeLinkText = (text: string) => text.replace(/[`>*&[\]]|\$\$/g, (c) => LINK_ESCAPES[c] ?? c);

/** Zulip's get_message_link_syntax: `#**channel>topic@id**`, or a plain link where that would break. */
export function messageLinkSyntax(
  channel: { id: number; name: string },
  topic: string,
  messageId: number,
): string {
  if (!BROKEN_LINK.test(channel.name) && !BROKEN_LINK.test(topic)) {
    return `#**${channel.name}>${topic}@${messageId}**`;
  }
  const topicName = topic === "" ? DEFAULT_EMPTY_TOPIC_DISPLAY_NAME : topic;
  const text = `#${escapeLinkText(channel.name)} > ${escapeLinkText(topicName)} @ 💬`;
  const href =
    `#narrow/channel/${encodeChannel(channel.id, channel.name)}` +
    `/topic/${hashUtilEncode(topic)}/near/${messageId}`;
  return `[${text}](${href})`;
}

/** Zulip's get_unused_fence: backticks, one more than the longest fence in the content. */
export function unusedFence(content: string): string {
  let length = 3;
  for (const match of content.matchAll(/^ {0,3}(`{3,})/gm)) length = Math.max(length, match[1]!.length + 1);
  return "`".repeat(length);
}
