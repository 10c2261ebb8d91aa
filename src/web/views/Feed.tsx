import { useEffect, useMemo, useRef } from "preact/hooks";
import { client } from "../app.js";
import { setFlag, markNarrowRead } from "../actions.js";
import type { Message } from "../api/types.js";
import { loadInitial } from "../live/fetch.js";
import type { MessageList } from "../model/messages.js";
import { hashOf, nearMessageId, narrowChannel, narrowDm, type Narrow } from "../model/narrow.js";
import { replaceHash } from "../router.js";
import { MessageItem } from "./MessageItem.js";
import { dayLabel } from "./time.js";
import { BlockKeys } from "./feed-blocks.js";
import { channelHash, dmHash, topicHash } from "./LeftSidebar.js";
import { Icon } from "./Icon.js";
import { composeTarget } from "./compose-state.js";
import { channelOf } from "./links.js";
import { useFeedScrolling } from "./feed-scrolling.js";
import { noteFeedDrawn } from "../perf.js";

export function Feed({ narrow, title }: { narrow: Narrow; title: string }) {
  const list = client.lists.get(narrow, client.myUserId);
  const scroller = useRef<HTMLDivElement>(null);
  const generation = client.generation.value;

  // Open (or re-open after a new register) at the first unread message or the linked one.
  useEffect(() => {
    replaceHash(hashOf(narrow, client.world));
    if (list.ids.value.length === 0 && list.loading.value === null) {
      void loadInitial(client, list, nearMessageId(narrow)).catch(() => undefined);
    }
  }, [list, generation]);

  const ids = list.ids.value;
  const blockKeys = useMemo(() => new BlockKeys(client.myUserId), []);
  // peek(): each message item follows its own message; the feed redraws when the list changes
  // (a move touches the list, so the headers follow).
  const blocks = useMemo(
    () =>
      blockKeys.blocks(
        ids.map((id) => client.messages.get(id)?.peek()).filter((m): m is Message => m !== undefined),
      ),
    [ids],
  );

  const retryAtEdge = useFeedScrolling(scroller, list, list.anchor.value);
  const retry = () =>
    list.ids.value.length === 0
      ? void loadInitial(client, list, nearMessageId(narrow)).catch(() => undefined)
      : retryAtEdge();
  useEffect(() => {
    if (blocks.length > 0) noteFeedDrawn();
  }, [blocks.length > 0]);
  useReadMarking(scroller, list);

  const channel = narrowChannel(narrow);
  const empty = ids.length === 0 && list.foundOldest.value && list.foundNewest.value;
  return (
    <section class="feed-view" aria-labelledby="feed-title">
      <div class="view-header">
        <h1 id="feed-title">{title}</h1>
        {channel && <ChannelDescription streamId={channel.streamId} />}
        <button type="button" class="text-button" onClick={() => void markNarrowRead(narrow)}>
          <Icon name="check" size={16} /> Mark all as read
        </button>
      </div>
      <div class="feed" role="region" aria-label="Messages" ref={scroller} tabIndex={-1}>
        {list.foundOldest.value && ids.length > 0 && (
          <p class="feed-edge">This is the beginning of the conversation.</p>
        )}
        {list.loading.value === "older" && (
          <p class="feed-edge" role="status">
            Loading older messages…
          </p>
        )}
        {list.loading.value === "initial" && (
          <p class="feed-edge" role="status">
            Loading messages…
          </p>
        )}
        {list.error.value && (
          <p class="feed-edge error" role="alert">
            Messages could not be loaded: {list.error.value}{" "}
            <button type="button" class="text-button" onClick={retry}>
              Try again
            </button>
          </p>
        )}
        {empty && (
          <p class="feed-empty">
            {list.serverOnly ? "No messages match your search." : "No messages here yet."}
          </p>
        )}
        {blocks.map((block) => (
          <div class="block" key={block.key}>
            {block.day && (
              <div class="day-divider">
                <span>{dayLabel(block.first.timestamp)}</span>
              </div>
            )}
            <RecipientHeader message={block.first} />
            {block.messages.map((message, i) => (
              <MessageItem
                key={message.id}
                id={message.id}
                continued={
                  i > 0 &&
                  block.messages[i - 1]!.sender_id === message.sender_id &&
                  message.timestamp - block.messages[i - 1]!.timestamp < 600
                }
              />
            ))}
          </div>
        ))}
        {list.loading.value === "newer" && (
          <p class="feed-edge" role="status">
            Loading newer messages…
          </p>
        )}
      </div>
    </section>
  );
}

function ChannelDescription({ streamId }: { streamId: number }) {
  const channel = client.world.channels.value.get(streamId);
  if (!channel?.rendered_description) return null;
  return (
    <div class="channel-description" dangerouslySetInnerHTML={{ __html: channel.rendered_description }} />
  );
}

function RecipientHeader({ message }: { message: Message }) {
  if (message.type === "stream") {
    const streamId = message.stream_id!;
    const name = channelOf(message);
    const topic = message.subject;
    const sub = client.world.subscriptions.value.get(streamId);
    return (
      <h2 class="recipient-header" style={{ borderColor: sub?.color }}>
        <a href={channelHash(streamId, name)} class="recipient-channel">
          <Icon name={client.world.channels.value.get(streamId)?.invite_only ? "lock" : "hash"} size={14} />
          {name}
        </a>
        <span aria-hidden="true" class="recipient-sep">
          ›
        </span>
        <a
          href={topicHash(streamId, name, topic)}
          class="recipient-topic"
          onClick={() => (composeTarget.value = { kind: "stream", streamId, topic })}
        >
          {topic === "" ? <em>{client.world.realm.value.emptyTopicName}</em> : topic}
        </a>
      </h2>
    );
  }
  const others = (message.display_recipient as Array<{ id: number; full_name: string }>).filter(
    (r) => r.id !== client.myUserId,
  );
  const ids = others.length === 0 ? [client.myUserId] : others.map((r) => r.id);
  const names =
    others.length === 0
      ? (client.world.fullName(client.myUserId) ?? "You")
      : others.map((r) => client.world.fullName(r.id) ?? r.full_name).join(", ");
  return (
    <h2 class="recipient-header dm-header">
      <a href={dmHash(ids)}>
        <Icon name="users" size={14} /> You and {names}
      </a>
    </h2>
  );
}

/** Marks unread messages read once they have been on screen while the window had the focus. */
function useReadMarking(scroller: { current: HTMLDivElement | null }, list: MessageList): void {
  useEffect(() => {
    const el = scroller.current;
    if (!el || list.serverOnly) return;
    const pending = new Set<number>();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      const ids = [...pending].filter((id) => client.unread.has(id));
      pending.clear();
      void setFlag(ids, "read", true).catch(() => undefined);
    };
    const seen = new Set<Element>();
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) seen.add(entry.target);
          else seen.delete(entry.target);
        }
        markSeen();
      },
      { root: el, threshold: 0.6 },
    );
    const markSeen = () => {
      if (!document.hasFocus() || document.visibilityState !== "visible") return;
      for (const target of seen) {
        const id = Number((target as HTMLElement).dataset.messageId);
        if (client.unread.has(id)) pending.add(id);
      }
      if (pending.size > 0 && timer === null) timer = setTimeout(flush, 300);
    };
    const observeAll = () => {
      for (const article of el.querySelectorAll("article[data-unread]")) observer.observe(article);
    };
    observeAll();
    const mutations = new MutationObserver(observeAll);
    mutations.observe(el, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ["data-unread"],
    });
    window.addEventListener("focus", markSeen);
    document.addEventListener("visibilitychange", markSeen);
    return () => {
      observer.disconnect();
      mutations.disconnect();
      window.removeEventListener("focus", markSeen);
      document.removeEventListener("visibilitychange", markSeen);
      if (timer !== null) {
        clearTimeout(timer);
        flush();
      }
    };
  }, [list]);
}

/** The heading of a narrow's view. */
export function narrowTitle(narrow: Narrow): string {
  if (narrow.length === 0) return "All messages";
  const channel = narrowChannel(narrow);
  if (channel) {
    const name = client.world.channelName(channel.streamId) ?? "Unknown channel";
    return channel.topic === null
      ? `#${name}`
      : `#${name} › ${channel.topic === "" ? client.world.realm.value.emptyTopicName : channel.topic}`;
  }
  const dm = narrowDm(narrow);
  if (dm)
    return `Direct messages with ${dm.map((id) => client.world.fullName(id) ?? "Unknown user").join(", ")}`;
  const is = narrow.find((t) => t.operator === "is");
  if (narrow.length === 1 && is?.operand === "mentioned") return "Mentions";
  if (narrow.length === 1 && is?.operand === "starred") return "Starred messages";
  if (narrow.length === 1 && (is?.operand === "dm" || is?.operand === "private")) return "Direct messages";
  const search = narrow
    .map((t) => (t.operator === "search" ? t.operand : `${t.negated ? "-" : ""}${t.operator}:${t.operand}`))
    .join(" ");
  return `Search: ${search}`;
}
