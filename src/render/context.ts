/**
 * What the message renderer needs to know about the organization. The caller supplies
 * lookups (from the database or a cache); the renderer itself never touches the database.
 * Lookups should answer only with what the sender may see (an inaccessible user, a
 * channel whose content the sender cannot read, a deactivated custom emoji: undefined).
 */
export interface MentionableUser {
  id: number;
  full_name: string;
  is_active: boolean;
}

export interface MentionableGroup {
  id: number;
  /** Shown in the mention (for system groups, the caller may pass the display name). */
  name: string;
  deactivated: boolean;
}

export interface LinkableChannel {
  id: number;
  name: string;
}

export interface Linkifier {
  /** A regular expression (Zulip's re2 syntax; `(?P<name>...)` groups are accepted). */
  pattern: string;
  /** An RFC 6570 URL template over the pattern's named groups, e.g. "https://github.com/x/y/issues/{id}". */
  url_template: string;
}

export interface RealmEmojiInfo {
  id: number;
  name: string;
  source_url: string;
}

/** What the renderer knows about an uploaded image (Zulip's MarkdownImageMetadata). */
export interface UploadPreview {
  /** The thumbnail's URL, or null while it is being made. */
  url: string | null;
  animated: boolean;
  width: number;
  height: number;
  contentType: string;
}

export interface RenderContext {
  /** Users whose full name matches, case-insensitively (Zulip's full_name__iexact). Several = ambiguous. */
  userByFullName(name: string): MentionableUser[];
  userById(id: number): MentionableUser | undefined;
  /** A user group by name, case-insensitively. */
  groupByName(name: string): MentionableGroup | undefined;
  /** A channel by its exact name. */
  channelByName(name: string): LinkableChannel | undefined;
  /** An active custom emoji by name. */
  realmEmoji(name: string): RealmEmojiInfo | undefined;
  /** Shown (in <em>) for links to the empty topic: realm_empty_topic_display_name. */
  emptyTopicDisplayName: string;
  /** The organization's URL, e.g. "https://chat.example.com"; links into it become relative. */
  realmUrl: string;
  /** For topic links' `/with/<id>`: the newest message in the topic the sender can see. */
  latestMessageIdInTopic?(channelId: number, topic: string): number | undefined;
  /** Clock for `<time:...>` values that leave out the date (defaults to now). */
  now?: () => Date;
  /** The organization's linkifiers, in order (applied to text outside code and links). */
  linkifiers?: readonly Linkifier[];
  /** An uploaded image of the organization by path_id, with its thumbnail (previews). */
  uploadPreview?(pathId: string): UploadPreview | undefined;
}

/** Per-render state, passed to markdown-it as its `env` (a type, so it fits markdown-it's Env). */
export type RenderEnv = {
  ctx: RenderContext;
  /** Lookups already made during this render (mentions are resolved once per name). */
  users: Map<string, ResolvedUserMention | null>;
  groups: Map<string, MentionableGroup | null>;
  channels: Map<string, LinkableChannel | null>;
  /** What the rendered message contains, collected after parsing. */
  found: FoundInMessage;
};

export interface FoundInMessage {
  userIds: Set<number>;
  groupIds: Set<number>;
  channelWildcard: boolean;
  topicWildcard: boolean;
  link: boolean;
  image: boolean;
  attachmentPathIds: string[];
  channelIds: Set<number>;
}

export type ResolvedUserMention =
  { kind: "user"; user: MentionableUser } | { kind: "channel-wildcard" } | { kind: "topic-wildcard" };

export function createRenderEnv(ctx: RenderContext): RenderEnv {
  return {
    ctx,
    users: new Map(),
    groups: new Map(),
    channels: new Map(),
    found: {
      userIds: new Set(),
      groupIds: new Set(),
      channelWildcard: false,
      topicWildcard: false,
      link: false,
      image: false,
      attachmentPathIds: [],
      channelIds: new Set(),
    },
  };
}

/** The RenderEnv of a markdown-it state (the engine is only ever run with one). */
export const renderEnv = (state: { env: unknown }): RenderEnv => state.env as RenderEnv;
