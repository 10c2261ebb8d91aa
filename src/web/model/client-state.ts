import { batch, signal } from "@preact/signals-core";
import type { InitialState, Message, WireDraft } from "../api/types.js";
import { ListCache, MessageStore } from "./messages.js";
import { mentionOf, messageDmKey } from "./narrow.js";
import { TopicHistory } from "./topics.js";
import { TypingState } from "./typing.js";
import { UnreadState, type Place } from "./unread.js";
import { World } from "./world.js";

/**
 * The client's whole state: what register gave, then kept current by the events that
 * follow (model/events.ts). Views read it; only register and events write it.
 */
export class ClientState {
  readonly world = new World();
  readonly messages = new MessageStore();
  readonly unread = new UnreadState();
  readonly lists = new ListCache();
  readonly typing = new TypingState();
  readonly topics = new TopicHistory();
  readonly drafts = signal<ReadonlyMap<number, WireDraft>>(new Map());
  /** Recent direct-message conversations: dmKey -> newest message ID. */
  readonly recentDms = signal<ReadonlyMap<string, number>>(new Map());
  /** Bumped when the state was loaded anew (a new event queue): views refetch their messages. */
  readonly generation = signal(0);

  constructor() {
    this.unread.isMuted = (streamId, topic) => this.world.isTopicMuted(streamId, topic);
  }

  get myUserId(): number {
    return this.world.myUserId;
  }

  load(state: InitialState): void {
    batch(() => {
      this.world.load(state);
      this.unread.load(state.unread_msgs, state.user_id);
      this.drafts.value = new Map((state.drafts ?? []).map((d) => [d.id, d]));
      this.recentDms.value = new Map(
        state.recent_private_conversations.map((c) => [
          c.user_ids.length === 0 ? String(state.user_id) : [...c.user_ids].sort((a, b) => a - b).join(","),
          c.max_message_id,
        ]),
      );
      // Whatever the lists held may have changed while there was no queue.
      for (const list of this.lists.all()) list.reset();
      this.topics.clear();
      this.generation.value++;
    });
  }

  /** Where a message is, for unread counting. */
  placeOf(message: Message): Place {
    return message.type === "stream"
      ? { kind: "stream", streamId: message.stream_id!, topic: message.subject }
      : { kind: "dm", key: messageDmKey(message, this.myUserId) };
  }

  /** A message that arrived (event) or was sent: stored, offered to the lists, counted. */
  addMessage(message: Message): void {
    batch(() => {
      this.messages.put([message]);
      for (const list of this.lists.all()) list.offer(message);
      if (!message.flags.includes("read")) {
        this.unread.add(message.id, this.placeOf(message), mentionOf(message.flags));
      }
      if (message.type === "stream") this.topics.note(message.stream_id!, message.subject, message.id);
      if (message.type === "private") {
        const key = messageDmKey(message, this.myUserId);
        this.recentDms.value = new Map(this.recentDms.value).set(key, message.id);
      }
    });
  }
}
