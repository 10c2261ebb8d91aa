import { signal } from "@preact/signals-core";

/** Who is typing where: "stream:<id>:<topic>" or "dm:<dmKey>", each with an expiry. */
export class TypingState {
  readonly typists = signal<ReadonlyMap<string, ReadonlyMap<number, number>>>(new Map());

  start(place: string, userId: number, expiresAtMs: number): void {
    const next = new Map(this.typists.value);
    next.set(place, new Map(next.get(place) ?? []).set(userId, expiresAtMs));
    this.typists.value = next;
  }

  stop(place: string, userId: number): void {
    const people = this.typists.value.get(place);
    if (!people?.has(userId)) return;
    const next = new Map(this.typists.value);
    const left = new Map(people);
    left.delete(userId);
    if (left.size === 0) next.delete(place);
    else next.set(place, left);
    this.typists.value = next;
  }

  /** Drops notices whose sender stopped sending "still typing" (a closed tab never says stop). */
  expire(nowMs: number): void {
    let changed = false;
    const next = new Map<string, ReadonlyMap<number, number>>();
    for (const [place, people] of this.typists.value) {
      const left = new Map([...people].filter(([, until]) => until > nowMs));
      if (left.size !== people.size) changed = true;
      if (left.size > 0) next.set(place, left);
    }
    if (changed) this.typists.value = next;
  }

  /** The people typing in a place, in the order they started. */
  who(place: string): number[] {
    return [...(this.typists.value.get(place)?.keys() ?? [])];
  }
}

export const streamPlace = (streamId: number, topic: string) => `stream:${streamId}:${topic.toLowerCase()}`;
export const dmPlace = (key: string) => `dm:${key}`;
