import { signal } from "@preact/signals-core";

export interface TopicEntry {
  name: string;
  maxId: number;
}

/**
 * Each channel's topics, newest first, as GET /users/me/{stream_id}/topics gives them,
 * then kept current by the messages that arrive. A channel's list is fetched the first
 * time a view asks for it (`needs`), and then lives in memory.
 */
export class TopicHistory {
  private readonly byChannel = signal<ReadonlyMap<number, readonly TopicEntry[]>>(new Map());
  private readonly requested = new Set<number>();
  /** Set by the app: fetches a channel's topics. */
  fetcher: ((streamId: number) => Promise<TopicEntry[]>) | null = null;

  forChannel(streamId: number): readonly TopicEntry[] {
    const topics = this.byChannel.value.get(streamId);
    if (!topics && !this.requested.has(streamId) && this.fetcher) {
      this.requested.add(streamId);
      this.fetcher(streamId).then(
        (fetched) => this.merge(streamId, fetched),
        () => this.requested.delete(streamId),
      );
    }
    return topics ?? [];
  }

  /** A message in a topic: the topic moves to the top. */
  note(streamId: number, topic: string, messageId: number): void {
    this.merge(streamId, [{ name: topic, maxId: messageId }]);
  }

  merge(streamId: number, entries: readonly TopicEntry[]): void {
    const byName = new Map<string, TopicEntry>();
    for (const entry of [...(this.byChannel.value.get(streamId) ?? []), ...entries]) {
      const key = entry.name.toLowerCase();
      const held = byName.get(key);
      if (!held || held.maxId < entry.maxId) byName.set(key, entry);
    }
    const sorted = [...byName.values()].sort((a, b) => b.maxId - a.maxId);
    this.byChannel.value = new Map(this.byChannel.value).set(streamId, sorted);
  }

  /** Everything is fetched again when asked (a new event queue: topics may have changed). */
  clear(): void {
    this.requested.clear();
    this.byChannel.value = new Map();
  }
}
