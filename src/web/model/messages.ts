import { batch, signal, type Signal } from "@preact/signals-core";
import type { Message } from "../api/types.js";
import { matches, narrowKey, type Narrow } from "./narrow.js";

/**
 * Every message the client holds, each in its own signal: an edit, a reaction or a star
 * redraws that one message. Lists (below) hold only IDs.
 */
export class MessageStore {
  private readonly byId = new Map<number, Signal<Message>>();

  get(id: number): Signal<Message> | undefined {
    return this.byId.get(id);
  }

  value(id: number): Message | undefined {
    return this.byId.get(id)?.value;
  }

  /** Adds fetched or new messages; one already held keeps its signal and takes the newer copy. */
  put(messages: readonly Message[]): void {
    batch(() => {
      for (const message of messages) {
        const held = this.byId.get(message.id);
        if (held) held.value = message;
        else this.byId.set(message.id, signal(message));
      }
    });
  }

  update(id: number, change: (message: Message) => Message): void {
    const held = this.byId.get(id);
    if (held) held.value = change(held.value);
  }

  delete(ids: Iterable<number>): void {
    for (const id of ids) this.byId.delete(id);
  }

  /** Forgets messages no list holds (after lists were dropped), keeping memory bounded. */
  retainOnly(keep: ReadonlySet<number>): void {
    for (const id of [...this.byId.keys()]) if (!keep.has(id)) this.byId.delete(id);
  }

  clear(): void {
    this.byId.clear();
  }

  get size(): number {
    return this.byId.size;
  }
}

export type Loading = null | "initial" | "older" | "newer";

/** The messages of one narrow the client has fetched: a contiguous range, oldest first. */
export class MessageList {
  readonly key: string;
  readonly ids = signal<readonly number[]>([]);
  readonly foundOldest = signal(false);
  readonly foundNewest = signal(false);
  readonly loading = signal<Loading>(null);
  readonly error = signal<string | null>(null);
  /** The message the view opened at (first unread, a `near` link), to scroll to once. */
  readonly anchor = signal<number | null>(null);
  /** Messages only the server can match (a search): live messages never join the list. */
  readonly serverOnly: boolean;

  constructor(
    readonly narrow: Narrow,
    myUserId: number,
  ) {
    this.key = narrowKey(narrow);
    this.serverOnly =
      narrow.some(
        (t) =>
          !["channel", "topic", "dm", "dm-including", "sender", "is", "near", "with", "id"].includes(
            t.operator,
          ),
      ) ||
      narrow.some(
        (t) =>
          t.operator === "is" &&
          !["dm", "private", "starred", "mentioned", "unread", "resolved"].includes(t.operand),
      );
    this.myUserId = myUserId;
  }

  private readonly myUserId: number;

  /**
   * New messages that matched while a fetch was under way: the fetch's answer may or may
   * not include them (it was read before or after they were sent), so they join with it.
   */
  private arrivedDuringFetch: number[] = [];

  /** Adds a batch of fetched messages (IDs merge into the range, sorted, without repeats). */
  addFetched(ids: readonly number[], found: { oldest?: boolean; newest?: boolean }): void {
    const arrived = found.newest ? this.arrivedDuringFetch : [];
    this.arrivedDuringFetch = [];
    batch(() => {
      this.ids.value = mergeIds(this.ids.value, [...ids, ...arrived]);
      if (found.oldest) this.foundOldest.value = true;
      if (found.newest) this.foundNewest.value = true;
    });
  }

  /**
   * A new message: joins the list if it belongs and the list reaches the newest message
   * (otherwise it would leave a gap: the list fetches newer messages when scrolled there).
   */
  offer(message: Message): boolean {
    if (this.serverOnly || matches(this.narrow, message, this.myUserId) !== true) return false;
    if (!this.foundNewest.value) {
      if (this.loading.value !== null) this.arrivedDuringFetch.push(message.id);
      return false;
    }
    if (this.ids.value.includes(message.id)) return false;
    this.ids.value = mergeIds(this.ids.value, [message.id]);
    return true;
  }

  /** Messages that left (deleted, moved away): removed from the range (and from those waiting for a fetch). */
  remove(ids: ReadonlySet<number>): void {
    this.arrivedDuringFetch = this.arrivedDuringFetch.filter((id) => !ids.has(id));
    const kept = this.ids.value.filter((id) => !ids.has(id));
    if (kept.length !== this.ids.value.length) this.ids.value = kept;
  }

  /** Re-checks messages that changed (moved, flags): those that no longer match leave. */
  recheck(messages: readonly Message[]): void {
    if (this.serverOnly) return;
    const leaving = new Set<number>();
    const joining: number[] = [];
    const held = new Set(this.ids.value);
    const waiting = new Set(this.arrivedDuringFetch);
    for (const message of messages) {
      const belongs = matches(this.narrow, message, this.myUserId) === true;
      if ((held.has(message.id) || waiting.has(message.id)) && !belongs) leaving.add(message.id);
      // A message moved in is shown only where the list's range covers it.
      if (!held.has(message.id) && belongs && this.covers(message.id)) joining.push(message.id);
    }
    if (leaving.size > 0) this.remove(leaving);
    if (joining.length > 0) this.ids.value = mergeIds(this.ids.value, joining);
  }

  /** Redraws the list's view (a message in it moved: its header changes). */
  touch(ids: Iterable<number>): void {
    const held = new Set(this.ids.value);
    for (const id of ids) {
      if (held.has(id)) {
        this.ids.value = [...this.ids.value];
        return;
      }
    }
  }

  /** Whether the fetched range includes this ID's position. */
  covers(id: number): boolean {
    const ids = this.ids.value;
    if (ids.length === 0) return this.foundOldest.value && this.foundNewest.value;
    const lowOk = this.foundOldest.value || id >= ids[0]!;
    const highOk = this.foundNewest.value || id <= ids[ids.length - 1]!;
    return lowOk && highOk;
  }

  /** Starts over (the event queue was lost: anything may have changed meanwhile). */
  reset(): void {
    this.arrivedDuringFetch = [];
    batch(() => {
      this.ids.value = [];
      this.foundOldest.value = false;
      this.foundNewest.value = false;
      this.loading.value = null;
      this.error.value = null;
    });
  }
}

/** Two ascending ID lists as one, without repeats. */
export function mergeIds(a: readonly number[], b: readonly number[]): number[] {
  if (b.length === 0) return a as number[];
  const sortedB = [...b].sort((x, y) => x - y);
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < sortedB.length) {
    const next = j >= sortedB.length || (i < a.length && a[i]! <= sortedB[j]!) ? a[i++]! : sortedB[j++]!;
    if (out.length === 0 || out[out.length - 1] !== next) out.push(next);
  }
  return out;
}

/** The lists the client keeps (the open view's and a few recent ones), by narrow. */
export class ListCache {
  private readonly lists = new Map<string, MessageList>();

  constructor(private readonly limit = 8) {}

  get(narrow: Narrow, myUserId: number): MessageList {
    const key = narrowKey(narrow);
    let list = this.lists.get(key);
    if (list) {
      // Most recently used last.
      this.lists.delete(key);
      this.lists.set(key, list);
      return list;
    }
    list = new MessageList(narrow, myUserId);
    this.lists.set(key, list);
    while (this.lists.size > this.limit) this.lists.delete(this.lists.keys().next().value!);
    return list;
  }

  all(): IterableIterator<MessageList> {
    return this.lists.values();
  }

  /** Every message ID some list holds. */
  heldIds(): Set<number> {
    const ids = new Set<number>();
    for (const list of this.lists.values()) for (const id of list.ids.value) ids.add(id);
    return ids;
  }

  clear(): void {
    this.lists.clear();
  }
}
