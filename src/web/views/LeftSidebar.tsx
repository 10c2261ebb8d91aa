import { follow } from "./follow.js";
import { client } from "../app.js";
import { channelSlug, dmSlug, encodeHashComponent, narrowHash } from "../model/hash.js";
import { canonicalNarrow, narrowChannel, narrowDm, dmKey, type Narrow } from "../model/narrow.js";
import { currentView } from "../router.js";
import { Icon, type IconName } from "./Icon.js";
import { PresenceDot } from "./Avatar.js";
import { closeSidebars } from "./layout.js";

export const channelHash = (streamId: number, name: string) =>
  `#narrow/channel/${channelSlug(streamId, name)}`;
export const topicHash = (streamId: number, name: string, topic: string) =>
  `${channelHash(streamId, name)}/topic/${encodeHashComponent(topic)}`;
export const dmHash = (userIds: number[]) =>
  narrowHash([
    {
      operator: "dm",
      operand: dmSlug(userIds, userIds.length === 1 ? client.world.fullName(userIds[0]!) : undefined),
    },
  ]);

function Count({ count, id }: { count: number; id?: string }) {
  if (count === 0) return null;
  return (
    <span class="count" id={id}>
      {count > 999 ? "999+" : count}
    </span>
  );
}

/** The open view's narrow with IDs for names and slugs ("12-general" -> "12"), as the feed has it. */
function openNarrow(): Narrow | null {
  const view = currentView.value;
  return view.kind === "narrow" ? canonicalNarrow(view.terms, client.world) : null;
}

/** The IDs of what describes a link (its count, "muted"), or undefined when nothing does. */
function describedBy(...ids: Array<string | false>): string | undefined {
  const present = ids.filter((id): id is string => id !== false);
  return present.length > 0 ? present.join(" ") : undefined;
}

/** Says "muted" to a screen reader, where the sidebar shows a muted entry dimmed. */
function MutedNote({ id }: { id: string }) {
  return (
    <span class="visually-hidden" id={id}>
      muted
    </span>
  );
}

function ViewLink({
  hash,
  icon,
  label,
  count,
  current,
}: {
  hash: string;
  icon: IconName;
  label: string;
  count?: number;
  current: boolean;
}) {
  const id = `view-count-${icon}`;
  return (
    <li>
      <a
        href={hash}
        class="side-link"
        aria-current={current ? "page" : undefined}
        aria-label={label}
        aria-describedby={count ? id : undefined}
        onClick={closeSidebars}
      >
        <Icon name={icon} />
        <span class="side-label">{label}</span>
        {count !== undefined && <Count count={count} id={id} />}
      </a>
    </li>
  );
}

export function LeftSidebar() {
  const view = currentView.value;
  follow(client.unread.version);
  const narrow = view.kind === "narrow" ? view.terms : null;
  const isOnly = (operand: string) =>
    narrow?.length === 1 && narrow[0]!.operator === "is" && narrow[0]!.operand === operand;
  return (
    <div class="left-sidebar" id="left-sidebar">
      <nav aria-label="Views">
        <ul class="side-list">
          <ViewLink
            hash="#inbox"
            icon="inbox"
            label="Inbox"
            count={client.unread.count}
            current={view.kind === "inbox"}
          />
          <ViewLink
            hash="#recent"
            icon="clock"
            label="Recent conversations"
            current={view.kind === "recent"}
          />
          <ViewLink
            hash="#narrow/is/mentioned"
            icon="at"
            label="Mentions"
            count={client.unread.mentionCount}
            current={isOnly("mentioned")}
          />
          <ViewLink
            hash="#narrow/is/starred"
            icon="star"
            label="Starred"
            count={client.world.starredCount.value}
            current={isOnly("starred")}
          />
          <ViewLink hash="#feed" icon="feed" label="All messages" current={narrow?.length === 0} />
        </ul>
      </nav>
      <ChannelList />
      <DmList />
    </div>
  );
}

function ChannelList() {
  const narrow = openNarrow();
  const open = narrow ? narrowChannel(narrow) : null;
  const subs = client.world.sidebarChannels.value;
  follow(client.unread.version);
  follow(client.world.userTopics);
  return (
    <nav aria-label="Channels" class="side-section">
      <div class="side-heading">
        <h2>Channels</h2>
        <a
          href="#channels/all"
          class="icon-button"
          aria-label="Browse channels"
          title="Browse and create channels"
          onClick={closeSidebars}
        >
          <Icon name="plus" size={16} />
        </a>
      </div>
      <ul class="side-list">
        {subs.map((sub) => {
          const count = client.unread.channelCount(sub.stream_id, (topic) =>
            client.world.isTopicMuted(sub.stream_id, topic),
          );
          const current = open?.streamId === sub.stream_id;
          const countId = `channel-count-${sub.stream_id}`;
          const mutedId = `channel-muted-${sub.stream_id}`;
          return (
            <li key={sub.stream_id} class={sub.is_muted ? "muted" : undefined}>
              <a
                href={channelHash(sub.stream_id, sub.name)}
                class="side-link"
                aria-current={current && open?.topic === null ? "page" : undefined}
                aria-label={sub.name}
                aria-describedby={describedBy(count > 0 && countId, sub.is_muted && mutedId)}
                onClick={closeSidebars}
              >
                <span class="channel-swatch" style={{ color: sub.color }}>
                  <Icon name={sub.invite_only ? "lock" : "hash"} size={16} />
                </span>
                <span class="side-label">{sub.name}</span>
                <Count count={count} id={countId} />
                {sub.is_muted && <MutedNote id={mutedId} />}
              </a>
              {current && (
                <TopicList streamId={sub.stream_id} name={sub.name} openTopic={open?.topic ?? null} />
              )}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** The open channel's topics: those with unread messages and those seen recently, newest first. */
function TopicList({
  streamId,
  name,
  openTopic,
}: {
  streamId: number;
  name: string;
  openTopic: string | null;
}) {
  // Read here, not in a computed: the counts below must redraw this list when they change.
  follow(client.unread.version);
  const topics = client.topics.forChannel(streamId);
  if (topics.length === 0) return null;
  return (
    <ul class="topic-list" aria-label={`Topics in ${name}`}>
      {topics.slice(0, 15).map((t, i) => {
        const count = client.unread.topicCount(streamId, t.name);
        const muted = client.world.isTopicMuted(streamId, t.name);
        const label = t.name === "" ? client.world.realm.value.emptyTopicName : t.name;
        const countId = `topic-count-${streamId}-${i}`;
        const mutedId = `topic-muted-${streamId}-${i}`;
        return (
          <li key={t.name} class={muted ? "muted" : undefined}>
            <a
              href={topicHash(streamId, name, t.name)}
              class="side-link topic-link"
              aria-current={
                openTopic !== null && openTopic.toLowerCase() === t.name.toLowerCase() ? "page" : undefined
              }
              aria-label={label}
              aria-describedby={describedBy(count > 0 && countId, muted && mutedId)}
              onClick={closeSidebars}
            >
              <span class="side-label">{label}</span>
              <Count count={count} id={countId} />
              {muted && <MutedNote id={mutedId} />}
            </a>
          </li>
        );
      })}
    </ul>
  );
}

function DmList() {
  const narrow = openNarrow();
  const open = narrow ? narrowDm(narrow) : null;
  const openKey = open ? dmKey(open, client.myUserId) : null;
  follow(client.unread.version);
  const recent = [...client.recentDms.value].sort((a, b) => b[1] - a[1]).slice(0, 20);
  for (const { key, maxId } of client.unread.dms())
    if (!recent.some(([k]) => k === key)) recent.push([key, maxId]);
  return (
    <nav aria-label="Direct messages" class="side-section">
      <div class="side-heading">
        <h2>Direct messages</h2>
      </div>
      <ul class="side-list">
        {recent.length === 0 && <li class="side-empty">No direct messages yet</li>}
        {recent.map(([key]) => {
          const ids = key.split(",").map(Number);
          const names = ids.map((id) => client.world.fullName(id) ?? "Unknown user").join(", ");
          const count = client.unread.dmCount(key);
          const countId = `dm-count-${key.replace(/,/g, "-")}`;
          return (
            <li key={key}>
              <a
                href={dmHash(ids)}
                class="side-link"
                aria-current={openKey === key ? "page" : undefined}
                aria-label={names}
                aria-describedby={describedBy(count > 0 && countId)}
                onClick={closeSidebars}
              >
                {ids.length === 1 ? <PresenceDot userId={ids[0]!} /> : <Icon name="users" size={14} />}
                <span class="side-label">{names}</span>
                <Count count={count} id={countId} />
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
