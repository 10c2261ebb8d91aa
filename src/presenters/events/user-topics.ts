import {
  hasCapability,
  type Flavour,
  type MutedTopicsEvent,
  type UserTopicEvent,
  type VisibilityPolicy,
} from "../../wire/events.js";
import { presentMutedTopics } from "../user-topics.js";

/** Events about the topics a user muted, unmuted or follows, sent to that user only. */

export function userTopicEvent(
  channelId: number,
  topic: string,
  policy: VisibilityPolicy,
  lastUpdated: number,
  emptyTopicName: string,
): UserTopicEvent {
  return {
    type: "user_topic",
    stream_id: channelId,
    topic_name: topic,
    last_updated: lastUpdated,
    visibility_policy: policy,
    ...(topic === "" ? { _empty_topic_name: emptyTopicName } : {}),
  };
}

export function mutedTopicsEvent(
  muted: Array<[string, string, number]>,
  emptyTopicName: string,
): MutedTopicsEvent {
  return {
    type: "muted_topics",
    muted_topics: muted,
    ...(muted.some(([, topic]) => topic === "") ? { _empty_topic_name: emptyTopicName } : {}),
  };
}

/** Clients without empty_topic_name see the empty topic under the realm's name for it. */
export const userTopicFlavour: Flavour<"user_topic"> = (event, { options }) => {
  const { _empty_topic_name: emptyName, ...wire } = event;
  if (emptyName === undefined || hasCapability(options, "empty_topic_name")) return wire;
  return { ...wire, topic_name: emptyName };
};

/**
 * The legacy event: queues that asked for user_topic by name get that instead (Zulip's
 * accepts_event), as /register leaves muted_topics out for them.
 */
export const mutedTopicsFlavour: Flavour<"muted_topics"> = (event, { options }) => {
  if (options.eventTypes?.includes("user_topic")) return null;
  const { _empty_topic_name: emptyName, ...wire } = event;
  if (emptyName === undefined || hasCapability(options, "empty_topic_name")) return wire;
  return { ...wire, muted_topics: presentMutedTopics(wire.muted_topics, emptyName) };
};
