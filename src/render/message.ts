import type { RenderContext } from "./context.js";
import { renderRaw } from "./message-engine.js";
import { sanitizeMessageHtml } from "./sanitize.js";

/**
 * Message Markdown -> Zulip's rendered_content, with what the message mentions and
 * contains. Pure: the caller supplies the lookups (RenderContext) and turns the result
 * into flags (group members and can_mention_group are the caller's business).
 */

export type {
  LinkableChannel,
  MentionableGroup,
  MentionableUser,
  RealmEmojiInfo,
  RenderContext,
  UploadPreview,
} from "./context.js";
export { plainText } from "./plain-text.js";
export { scanReferences, type MessageReferences } from "./references.js";
export { topicLinks, type Linkifier, type TopicLink } from "./topic-links.js";

export interface RenderedMessage {
  /** rendered_content. */
  html: string;
  /** Users mentioned directly and not silently (active users only). */
  mentionedUserIds: Set<number>;
  /** Groups mentioned not silently (the caller adds their members and checks can_mention_group). */
  mentionedGroupIds: Set<number>;
  /** "channel" for @**all** / @**everyone** / @**channel** / @**stream**, else "topic" for @**topic**. */
  wildcard: "channel" | "topic" | null;
  /** Both wildcard kinds, for the stream_wildcard_mentioned / topic_wildcard_mentioned flags. */
  mentionsChannelWildcard: boolean;
  mentionsTopicWildcard: boolean;
  /** Content starts with "/me " (the message is shown as "<sender> ..."). */
  isMeMessage: boolean;
  hasLink: boolean;
  /** A link to an image outside quotes (what Zulip would preview). */
  hasImage: boolean;
  /** The message links to uploaded files; the caller keeps this only if they exist. */
  hasAttachment: boolean;
  /** The path_ids of `/user_uploads/...` links, to match against attachments. */
  potentialAttachmentPathIds: string[];
  linkedChannelIds: Set<number>;
}

/** Zulip's Message.is_status_message. */
export function isMeMessage(content: string): boolean {
  return content.startsWith("/me ");
}

export function renderMessage(content: string, ctx: RenderContext): RenderedMessage {
  const { html, env } = renderRaw(content, ctx);
  const found = env.found;
  return {
    html: sanitizeMessageHtml(html),
    mentionedUserIds: found.userIds,
    mentionedGroupIds: found.groupIds,
    wildcard: found.channelWildcard ? "channel" : found.topicWildcard ? "topic" : null,
    mentionsChannelWildcard: found.channelWildcard,
    mentionsTopicWildcard: found.topicWildcard,
    isMeMessage: isMeMessage(content),
    hasLink: found.link,
    hasImage: found.image,
    hasAttachment: found.attachmentPathIds.length > 0,
    potentialAttachmentPathIds: found.attachmentPathIds,
    linkedChannelIds: found.channelIds,
  };
}
