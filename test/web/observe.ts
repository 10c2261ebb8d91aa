import type { ServerEvent } from "../../src/web/api/types.js";
import { ClientState } from "../../src/web/model/client-state.js";
import { applyEvent } from "../../src/web/model/events.js";
import type { InitialState } from "../../src/web/api/types.js";

const byId = <T>(map: ReadonlyMap<number, T>) =>
  Object.fromEntries([...map].sort(([a], [b]) => a - b).map(([id, value]) => [String(id), value]));

/**
 * What the views can see of a client state, as plain data: every count they show and
 * every map they read. Two states that agree here look the same to the person. Left out:
 * the presence clock skew (it depends on when the state was loaded), messages and lists
 * (register gives none), typing notices and topic histories (register gives none).
 */
export function observe(state: ClientState) {
  const { world, unread } = state;
  const channels = [...unread.channelsWithUnreads()].sort((a, b) => a - b);
  return {
    myUserId: state.myUserId,
    role: world.role.value,
    isAdmin: world.isAdmin.value,
    me: world.me.value,
    realm: world.realm.value,
    users: byId(world.users.value),
    groups: byId(world.groups.value),
    channels: byId(world.channels.value),
    subscriptions: byId(world.subscriptions.value),
    sidebar: world.sidebarChannels.value.map((s) => s.stream_id),
    settings: world.settings.value,
    presence: byId(world.presence.value),
    statuses: byId(world.statuses.value),
    userTopics: [...world.userTopics.value.values()]
      .map((t) => ({
        stream_id: t.stream_id,
        topic_name: t.topic_name,
        last_updated: t.last_updated,
        visibility_policy: t.visibility_policy,
      }))
      .sort((a, b) => a.stream_id - b.stream_id || a.topic_name.localeCompare(b.topic_name)),
    mutedUsers: [...world.mutedUsers.value].sort((a, b) => a - b),
    customEmoji: Object.fromEntries([...world.customEmoji.value].sort(([a], [b]) => a.localeCompare(b))),
    starredCount: world.starredCount.value,
    drafts: byId(state.drafts.value),
    recentDms: Object.fromEntries([...state.recentDms.value].sort(([a], [b]) => a.localeCompare(b))),
    unread: {
      count: unread.count,
      ids: unread.allIds(),
      mentions: unread.mentionIds().sort((a, b) => a - b),
      mentionCount: unread.mentionCount,
      channels: Object.fromEntries(
        channels.map((streamId) => [
          String(streamId),
          {
            count: unread.channelCount(streamId),
            unmuted: unread.channelCount(streamId, (topic) => world.isTopicMuted(streamId, topic)),
            // Topic names as keys, lower-cased: which spelling of a topic was seen first is not state.
            topics: Object.fromEntries(
              unread
                .topics(streamId)
                .map((t) => [t.topic.toLowerCase(), { count: t.count, maxId: t.maxId }] as const)
                .sort(([a], [b]) => a.localeCompare(b)),
            ),
          },
        ]),
      ),
      dms: unread.dms().sort((a, b) => a.key.localeCompare(b.key)),
    },
  };
}

export function loadedState(register: InitialState): ClientState {
  const state = new ClientState();
  state.load(register);
  return state;
}

/** An event as a test writes it: the queue numbers it. */
export type Unnumbered = ServerEvent extends infer E ? (E extends unknown ? Omit<E, "id"> : never) : never;

/** Applies events in order, numbering them as a queue does. */
export function applyAll(state: ClientState, events: readonly Unnumbered[]): void {
  events.forEach((event, i) => applyEvent(state, { ...event, id: i } as ServerEvent));
}
