import { signal } from "@preact/signals-core";
import type { UnreadMsgs } from "../api/types.js";

/** Where an unread message is: a channel's topic, or a direct-message conversation (dmKey). */
export type Place =
  | { readonly kind: "stream"; readonly streamId: number; readonly topic: string }
  | { readonly kind: "dm"; readonly key: string };

/**
 * How an unread message mentions the user: by name (or a group), or everyone in the
 * channel or topic. A wildcard mention counts only where the topic is not muted, as the
 * server counts register's unread mentions.
 */
export type Mention = "direct" | "wildcard" | null;

interface Entry {
  place: Place;
  mention: Mention;
}

/**
 * The user's unread messages, from register's unread_msgs and then every event that
 * changes them: each message where it is, and counts kept per channel, topic and
 * conversation so that every count the views show is a lookup. `version` changes with
 * every change, for views to follow.
 */
export class UnreadState {
  private readonly entries = new Map<number, Entry>();
  /** streamId -> lower-cased topic -> message IDs. */
  private readonly byTopic = new Map<number, Map<string, Set<number>>>();
  /** Topic names as first seen, by lower-cased name. */
  private readonly topicNames = new Map<number, Map<string, string>>();
  private readonly byDm = new Map<string, Set<number>>();
  private readonly mentions = new Set<number>();
  private readonly wildcards = new Set<number>();
  readonly version = signal(0);
  /** Whether a channel's topic is muted (its wildcard mentions do not count); set by ClientState. */
  isMuted: (streamId: number, topic: string) => boolean = () => false;

  /**
   * The state register gives (whatever was there before is forgotten). Its mentions are
   * the ones that counted then (wildcards in muted topics left out): all taken as direct.
   */
  load(unread: UnreadMsgs, myUserId: number): void {
    this.entries.clear();
    this.byTopic.clear();
    this.topicNames.clear();
    this.byDm.clear();
    this.mentions.clear();
    this.wildcards.clear();
    const mentioned = new Set(unread.mentions);
    const mention = (id: number): Mention => (mentioned.has(id) ? "direct" : null);
    for (const s of unread.streams) {
      for (const id of s.unread_message_ids) {
        this.put(id, { kind: "stream", streamId: s.stream_id, topic: s.topic }, mention(id));
      }
    }
    for (const pm of unread.pms) {
      const key = String(pm.other_user_id);
      for (const id of pm.unread_message_ids) this.put(id, { kind: "dm", key }, mention(id));
    }
    for (const group of unread.huddles) {
      const key = group.user_ids_string
        .split(",")
        .map(Number)
        .filter((id) => id !== myUserId)
        .sort((a, b) => a - b)
        .join(",");
      for (const id of group.unread_message_ids) this.put(id, { kind: "dm", key }, mention(id));
    }
    this.changed();
  }

  /** A message became unread (a new one, or marked unread). */
  add(id: number, place: Place, mention: Mention | boolean): void {
    if (this.entries.has(id)) return;
    this.put(id, place, mention === true ? "direct" : mention === false ? null : mention);
    this.changed();
  }

  /** An unread message's mention changed (an edit added or removed one). */
  setMention(id: number, mention: Mention): void {
    const entry = this.entries.get(id);
    if (!entry || entry.mention === mention) return;
    this.take(id);
    this.put(id, entry.place, mention);
    this.changed();
  }

  /** Forgets a channel's unread messages (the user left it, or it was deleted): register counts none there. */
  removeChannel(streamId: number): void {
    const topics = this.byTopic.get(streamId);
    if (topics) this.remove([...topics.values()].flatMap((ids) => [...ids]));
  }

  /** Messages read (or deleted). */
  remove(ids: Iterable<number>): void {
    let any = false;
    for (const id of ids) any = this.take(id) || any;
    if (any) this.changed();
  }

  /** Messages moved to another channel or topic. */
  move(ids: Iterable<number>, to: { streamId?: number; topic?: string }): void {
    let any = false;
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (!entry || entry.place.kind !== "stream") continue;
      const place: Place = {
        kind: "stream",
        streamId: to.streamId ?? entry.place.streamId,
        topic: to.topic ?? entry.place.topic,
      };
      this.take(id);
      this.put(id, place, entry.mention);
      any = true;
    }
    if (any) this.changed();
  }

  has(id: number): boolean {
    return this.entries.has(id);
  }

  get count(): number {
    return this.entries.size;
  }

  get mentionCount(): number {
    let count = this.mentions.size;
    for (const id of this.wildcards) if (this.wildcardCounts(id)) count++;
    return count;
  }

  /** Unread messages that mention the user: by name, or everyone where the topic is not muted. */
  mentionIds(): number[] {
    const ids = [...this.mentions];
    for (const id of this.wildcards) if (this.wildcardCounts(id)) ids.push(id);
    return ids;
  }

  private wildcardCounts(id: number): boolean {
    const { place } = this.entries.get(id)!;
    return place.kind === "dm" || !this.isMuted(place.streamId, place.topic);
  }

  /** Unread messages in a channel, leaving out the topics `skipTopic` says (muted ones). */
  channelCount(streamId: number, skipTopic?: (topic: string) => boolean): number {
    let count = 0;
    const topics = this.byTopic.get(streamId);
    if (!topics) return 0;
    for (const [key, ids] of topics) {
      if (skipTopic && skipTopic(this.topicNames.get(streamId)!.get(key)!)) continue;
      count += ids.size;
    }
    return count;
  }

  topicCount(streamId: number, topic: string): number {
    return this.byTopic.get(streamId)?.get(topic.toLowerCase())?.size ?? 0;
  }

  /** The channel's topics with unread messages, with their counts. */
  topics(streamId: number): Array<{ topic: string; count: number; maxId: number }> {
    const topics = this.byTopic.get(streamId);
    if (!topics) return [];
    return [...topics].map(([key, ids]) => ({
      topic: this.topicNames.get(streamId)!.get(key)!,
      count: ids.size,
      maxId: maxOf(ids),
    }));
  }

  channelsWithUnreads(): number[] {
    return [...this.byTopic.keys()];
  }

  dmCount(key: string): number {
    return this.byDm.get(key)?.size ?? 0;
  }

  /** Conversations with unread direct messages: key, count and newest unread ID. */
  dms(): Array<{ key: string; count: number; maxId: number }> {
    return [...this.byDm].map(([key, ids]) => ({ key, count: ids.size, maxId: maxOf(ids) }));
  }

  /** The unread message IDs of a place (a channel, a topic, a conversation), oldest first. */
  idsIn(filter: { streamId: number; topic?: string | null } | { dm: string }): number[] {
    let ids: number[] = [];
    if ("dm" in filter) ids = [...(this.byDm.get(filter.dm) ?? [])];
    else {
      const topics = this.byTopic.get(filter.streamId);
      if (topics) {
        if (filter.topic != null) ids = [...(topics.get(filter.topic.toLowerCase()) ?? [])];
        // A loop: spreading a big set into push's arguments overflows the stack.
        else for (const set of topics.values()) for (const id of set) ids.push(id);
      }
    }
    return ids.sort((a, b) => a - b);
  }

  allIds(): number[] {
    return [...this.entries.keys()].sort((a, b) => a - b);
  }

  private put(id: number, place: Place, mention: Mention): void {
    this.entries.set(id, { place, mention });
    if (mention === "direct") this.mentions.add(id);
    else if (mention === "wildcard") this.wildcards.add(id);
    if (place.kind === "stream") {
      const key = place.topic.toLowerCase();
      let topics = this.byTopic.get(place.streamId);
      if (!topics) {
        this.byTopic.set(place.streamId, (topics = new Map<string, Set<number>>()));
        this.topicNames.set(place.streamId, new Map());
      }
      let ids = topics.get(key);
      if (!ids) {
        topics.set(key, (ids = new Set()));
        this.topicNames.get(place.streamId)!.set(key, place.topic);
      }
      ids.add(id);
    } else {
      let ids = this.byDm.get(place.key);
      if (!ids) this.byDm.set(place.key, (ids = new Set()));
      ids.add(id);
    }
  }

  private take(id: number): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.entries.delete(id);
    this.mentions.delete(id);
    this.wildcards.delete(id);
    const { place } = entry;
    if (place.kind === "stream") {
      const key = place.topic.toLowerCase();
      const topics = this.byTopic.get(place.streamId);
      const ids = topics?.get(key);
      ids?.delete(id);
      if (ids?.size === 0) {
        topics!.delete(key);
        this.topicNames.get(place.streamId)!.delete(key);
        if (topics!.size === 0) {
          this.byTopic.delete(place.streamId);
          this.topicNames.delete(place.streamId);
        }
      }
    } else {
      const ids = this.byDm.get(place.key);
      ids?.delete(id);
      if (ids?.size === 0) this.byDm.delete(place.key);
    }
    return true;
  }

  private changed(): void {
    this.version.value++;
  }
}

/** The largest of a set of IDs (a loop: spreading 100,000 IDs into Math.max overflows the stack). */
function maxOf(ids: Iterable<number>): number {
  let max = 0;
  for (const id of ids) if (id > max) max = id;
  return max;
}
