import { useEffect } from "preact/hooks";
import { follow } from "./follow.js";
import { client } from "../app.js";
import { markNarrowRead } from "../actions.js";
import type { Message } from "../api/types.js";
import { loadInitial, loadOlder } from "../live/fetch.js";
import { messageDmKey } from "../model/narrow.js";
import { channelHash, dmHash, topicHash } from "./LeftSidebar.js";
import { Icon } from "./Icon.js";
import { timeOfDay, dayLabel, dayOf } from "./time.js";

/** Every conversation with unread messages: direct messages first, then each channel's topics. */
export function Inbox() {
  follow(client.unread.version);
  const dms = client.unread.dms().sort((a, b) => b.maxId - a.maxId);
  const channels = client.unread
    .channelsWithUnreads()
    .map((streamId) => ({
      streamId,
      sub: client.world.subscriptions.value.get(streamId),
      topics: client.unread.topics(streamId).sort((a, b) => b.maxId - a.maxId),
    }))
    .filter((c) => c.sub && !c.sub.is_muted)
    .sort(
      (a, b) =>
        Number(b.sub!.pin_to_top) - Number(a.sub!.pin_to_top) || a.sub!.name.localeCompare(b.sub!.name),
    );
  const empty = dms.length === 0 && channels.length === 0;
  return (
    <section class="list-view" aria-labelledby="inbox-title">
      <div class="view-header">
        <h1 id="inbox-title">Inbox</h1>
      </div>
      <div class="list-scroll">
        {empty && (
          <div class="empty-state">
            <p>There are no unread messages in your inbox.</p>
            <a href="#recent">See recent conversations</a>
          </div>
        )}
        {dms.length > 0 && (
          <section class="inbox-group" aria-label="Direct messages with unread messages">
            <h2 class="inbox-heading">Direct messages</h2>
            <ul>
              {dms.map(({ key, count }) => {
                const ids = key.split(",").map(Number);
                return (
                  <li key={key} class="inbox-row">
                    <a href={dmHash(ids)}>
                      {ids.map((id) => client.world.fullName(id) ?? "Unknown user").join(", ")}
                    </a>
                    <span class="count">{count}</span>
                  </li>
                );
              })}
            </ul>
          </section>
        )}
        {channels.map(({ streamId, sub, topics }) => (
          <section class="inbox-group" key={streamId} aria-label={`#${sub!.name}`}>
            <h2 class="inbox-heading" style={{ borderColor: sub!.color }}>
              <a href={channelHash(streamId, sub!.name)}>
                <Icon name={sub!.invite_only ? "lock" : "hash"} size={14} /> {sub!.name}
              </a>
              <button
                type="button"
                class="text-button"
                aria-label={`Mark #${sub!.name} as read`}
                onClick={() => void markNarrowRead([{ operator: "channel", operand: String(streamId) }])}
              >
                Mark as read
              </button>
            </h2>
            <ul>
              {topics
                .filter((t) => !client.world.isTopicMuted(streamId, t.topic))
                .map((t) => (
                  <li key={t.topic} class="inbox-row">
                    <a href={topicHash(streamId, sub!.name, t.topic)}>
                      {t.topic === "" ? client.world.realm.value.emptyTopicName : t.topic}
                    </a>
                    <span class="count">{t.count}</span>
                  </li>
                ))}
            </ul>
          </section>
        ))}
      </div>
    </section>
  );
}

interface Conversation {
  key: string;
  latest: Message;
  senders: Set<number>;
}

/** The newest conversations, read or not: each with its last message's time and who wrote in it. */
export function Recent() {
  const list = client.lists.get([], client.myUserId);
  const generation = client.generation.value;
  useEffect(() => {
    if (list.ids.value.length === 0 && list.loading.value === null)
      void loadInitial(client, list, null)
        .then(() => loadOlder(client, list))
        .catch(() => undefined);
  }, [list, generation]);
  const conversations = new Map<string, Conversation>();
  const ids = list.ids.value;
  for (let i = ids.length - 1; i >= 0; i--) {
    const message = client.messages.get(ids[i]!)?.value;
    if (!message) continue;
    const key =
      message.type === "stream"
        ? `s${message.stream_id}:${message.subject.toLowerCase()}`
        : `d${messageDmKey(message, client.myUserId)}`;
    const found = conversations.get(key);
    if (found) found.senders.add(message.sender_id);
    else conversations.set(key, { key, latest: message, senders: new Set([message.sender_id]) });
  }
  follow(client.unread.version);
  const twentyFour = client.world.settings.value.twenty_four_hour_time;
  return (
    <section class="list-view" aria-labelledby="recent-title">
      <div class="view-header">
        <h1 id="recent-title">Recent conversations</h1>
      </div>
      <div class="list-scroll">
        {list.loading.value === "initial" && <p role="status">Loading…</p>}
        <table class="recent-table">
          <thead>
            <tr>
              <th scope="col">Conversation</th>
              <th scope="col">Unread</th>
              <th scope="col">Participants</th>
              <th scope="col">Last message</th>
            </tr>
          </thead>
          <tbody>
            {[...conversations.values()].map(({ key, latest, senders }) => {
              const isStream = latest.type === "stream";
              const name = isStream ? (client.world.channelName(latest.stream_id!) ?? "") : "";
              const dmIds = isStream ? [] : messageDmKey(latest, client.myUserId).split(",").map(Number);
              const count = isStream
                ? client.unread.topicCount(latest.stream_id!, latest.subject)
                : client.unread.dmCount(dmIds.join(","));
              return (
                <tr key={key}>
                  <td>
                    {isStream ? (
                      <a href={topicHash(latest.stream_id!, name, latest.subject)}>
                        #{name} ›{" "}
                        {latest.subject === "" ? client.world.realm.value.emptyTopicName : latest.subject}
                      </a>
                    ) : (
                      <a href={dmHash(dmIds)}>
                        {dmIds.map((id) => client.world.fullName(id) ?? "Unknown user").join(", ")}
                      </a>
                    )}
                  </td>
                  <td>{count > 0 ? <span class="count">{count}</span> : null}</td>
                  <td>{[...senders].map((id) => client.world.fullName(id) ?? "?").join(", ")}</td>
                  <td>
                    {dayOf(latest.timestamp) === new Date().toDateString()
                      ? timeOfDay(latest.timestamp, twentyFour)
                      : dayLabel(latest.timestamp)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
