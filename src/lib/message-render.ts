import type { Knex } from "knex";
import { emojiSourceUrl } from "./realm-emoji.js";
import { linkifiersOfRealm } from "./linkifiers.js";
import type { ChannelRow } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import { emptyTopicDisplayName } from "./realm-limits.js";
import {
  renderMessage,
  scanReferences,
  type Linkifier,
  type MentionableGroup,
  type MentionableUser,
  type RealmEmojiInfo,
  type RenderContext,
  type RenderedMessage,
  type UploadPreview,
} from "../render/message.js";
import type { ChannelSnapshot } from "../world/channels.js";
import {
  canAccessChannelContent,
  canAccessChannelHistory,
  canAccessChannelMetadata,
} from "../permissions/channel-access.js";
import type { RealmSnapshot } from "../world/realm.js";
import { loadUploadPreviews } from "./upload-previews.js";

/**
 * Rendering a message being sent: scan what it may refer to, bulk-load just that (at
 * most one query per kind: channels, custom emoji, topic links), then render with
 * synchronous lookups that answer only with what the sender may see (Zulip's
 * MentionBackend with an acting user).
 */

export interface RenderScope {
  /** Reads go through this (the transaction's knex inside one). */
  knex: Knex;
  realm: RealmSnapshot;
  /**
   * The channels as the sender's request sees them (lookups and visibility), or null
   * to read channels from `knex` (a transaction that may have created some; only for
   * system bots, which may link to every channel).
   */
  channels: ChannelSnapshot | null;
  sender: UserRow;
  realmUrl: string;
  now: () => Date;
  /** The realm's linkifiers when the caller already read them (a send's topic links need them too). */
  linkifiers?: readonly Linkifier[];
  /** The realm's active custom emoji by name, when the caller has them (cached for sends). */
  realmEmoji?: ReadonlyMap<string, { id: number; name: string; file_name: string | null }>;
}

export const isSystemBot = (user: UserRow) => bool(user.is_system_bot);

const mentionable = (user: UserRow): MentionableUser => ({
  id: user.id,
  full_name: user.full_name,
  is_active: bool(user.is_active),
});

/** May the sender link to the channel (see that it exists)? */
function canSeeChannel(scope: RenderScope, channel: ChannelRow): boolean {
  if (channel.realm_id !== scope.realm.id) return false;
  if (isSystemBot(scope.sender)) return true;
  if (!scope.channels) return false;
  return canAccessChannelMetadata({ realm: scope.realm, channels: scope.channels }, scope.sender, channel);
}

/**
 * Which of a channel's messages the sender may link to: all of them (it may read the
 * channel's history), only those it received, or none (no content access, as Zulip's
 * MentionBackend: such channels get no message ID).
 */
function historyAccess(scope: RenderScope, channel: ChannelRow): "all" | "own" | "none" {
  if (isSystemBot(scope.sender)) return "all";
  if (!scope.channels) return "none";
  const world = { realm: scope.realm, channels: scope.channels };
  if (!canAccessChannelContent(world, scope.sender, channel)) return "none";
  return canAccessChannelHistory(world, scope.sender, channel) ? "all" : "own";
}

async function loadChannels(
  scope: RenderScope,
  names: ReadonlySet<string>,
): Promise<Map<string, ChannelRow>> {
  const byKey = new Map<string, ChannelRow>();
  if (names.size === 0) return byKey;
  // Names match without regard to case (names are unique that way), but not around spaces.
  const keys = [...new Set([...names].map((name) => name.toLowerCase()))];
  let rows: ChannelRow[];
  if (scope.channels) {
    const snapshot = scope.channels;
    rows = keys.map((key) => snapshot.channelByName(key)).filter((c): c is ChannelRow => c !== undefined);
    rows = rows.filter((c) => keys.includes(c.name_key));
  } else {
    rows = await scope
      .knex<ChannelRow>("streams")
      .where({ realm_id: scope.realm.id })
      .whereIn("name_key", keys);
  }
  for (const channel of rows) if (canSeeChannel(scope, channel)) byKey.set(channel.name_key, channel);
  return byKey;
}

async function loadRealmEmoji(scope: RenderScope, names: ReadonlySet<string>) {
  const byName = new Map<string, RealmEmojiInfo>();
  if (names.size === 0) return byName;
  const realmId = scope.realm.id;
  const known = scope.realmEmoji;
  const rows = known
    ? [...names].flatMap((name) => known.get(name) ?? [])
    : await scope
        .knex("realm_emoji")
        .where({ realm_id: realmId, deactivated: false })
        .whereIn("name", [...names])
        .select<Array<{ id: number; name: string; file_name: string | null }>>("id", "name", "file_name");
  for (const row of rows) {
    byName.set(row.name, {
      id: row.id,
      name: row.name,
      source_url: emojiSourceUrl({ realm_id: realmId, ...row }),
    });
  }
  return byName;
}

const topicKey = (channelId: number, topic: string) => `${channelId}\u0000${topic.toLowerCase()}`;

/** The newest message the sender may read in each linked topic (for `/with/<id>`). */
async function loadLatestInTopics(
  scope: RenderScope,
  topics: ReadonlyArray<{ channelName: string; topic: string }>,
  channels: ReadonlyMap<string, ChannelRow>,
): Promise<Map<string, number>> {
  const latest = new Map<string, number>();
  const wanted = { all: [] as Array<[number, string]>, own: [] as Array<[number, string]> };
  for (const { channelName, topic } of topics) {
    const channel = channels.get(channelName.toLowerCase());
    if (!channel) continue;
    const access = historyAccess(scope, channel);
    if (access !== "none") wanted[access].push([channel.id, topic.toLowerCase()]);
  }
  for (const access of ["all", "own"] as const) {
    const pairs = wanted[access];
    if (pairs.length === 0) continue;
    const query = scope
      .knex("messages as m")
      .where((qb) => {
        for (const [channelId, key] of pairs) qb.orWhere({ "m.stream_id": channelId, "m.topic_key": key });
      })
      .groupBy("m.stream_id", "m.topic_key")
      .select<Array<{ stream_id: number; topic_key: string; max_id: number }>>(
        "m.stream_id",
        "m.topic_key",
        scope.knex.raw("max(m.id) as max_id"),
      );
    if (access === "own") {
      query.join("user_messages as um", "um.message_id", "m.id").where("um.user_id", scope.sender.id);
    }
    for (const row of await query) latest.set(topicKey(row.stream_id, row.topic_key), row.max_id);
  }
  return latest;
}

/** The lookups for rendering `content` as `scope.sender`, loaded in bulk. */
export async function loadRenderContext(scope: RenderScope, content: string): Promise<RenderContext> {
  const refs = scanReferences(content);
  const { realm } = scope;

  const wantedNames = new Set([...refs.userNames].map((n) => n.toLowerCase()));
  const usersByName = new Map<string, MentionableUser[]>();
  if (wantedNames.size > 0) {
    for (const user of realm.users) {
      const key = user.full_name.toLowerCase();
      if (!wantedNames.has(key)) continue;
      const list = usersByName.get(key);
      if (list) list.push(mentionable(user));
      else usersByName.set(key, [mentionable(user)]);
    }
  }

  const wantedGroups = new Set([...refs.groupNames].map((n) => n.toLowerCase()));
  const groupsByName = new Map<string, MentionableGroup>();
  if (wantedGroups.size > 0) {
    for (const { row } of realm.groups.values()) {
      if (row.name === null || !wantedGroups.has(row.name.toLowerCase())) continue;
      groupsByName.set(row.name.toLowerCase(), {
        id: row.id,
        name: row.name,
        deactivated: bool(row.deactivated),
      });
    }
  }

  const channels = await loadChannels(scope, refs.channelNames);
  const emoji = await loadRealmEmoji(scope, refs.emojiNames);
  const latest = refs.topics.length > 0 ? await loadLatestInTopics(scope, refs.topics, channels) : null;
  // Zulip previews images only where the organization's inline_image_preview is on.
  const linkifiers = scope.linkifiers ?? (await linkifiersOfRealm(scope.knex, realm.id));
  const previews = bool(realm.realm.inline_image_preview)
    ? await loadUploadPreviews(scope.knex, realm.id, content)
    : new Map<string, UploadPreview>();

  return {
    userByFullName: (name) => usersByName.get(name.toLowerCase()) ?? [],
    userById: (id) => {
      const user = realm.user(id);
      return user ? mentionable(user) : undefined;
    },
    groupByName: (name) => groupsByName.get(name.toLowerCase()),
    channelByName: (name) => {
      const channel = channels.get(name.toLowerCase());
      return channel ? { id: channel.id, name: channel.name } : undefined;
    },
    realmEmoji: (name) => emoji.get(name),
    emptyTopicDisplayName: emptyTopicDisplayName(realm.realm),
    realmUrl: scope.realmUrl,
    latestMessageIdInTopic: (channelId, topic) => latest?.get(topicKey(channelId, topic)),
    now: scope.now,
    uploadPreview: (pathId) => previews.get(pathId),
    linkifiers,
  };
}

/** Loads what the content refers to and renders it. */
export async function renderForSend(scope: RenderScope, content: string): Promise<RenderedMessage> {
  return renderMessage(content, await loadRenderContext(scope, content));
}
