import { int } from "../db/rows.js";
import type { VisibilityPolicy } from "../wire/events.js";
import type { UserTopicRow } from "../lib/user-topics.js";

/** A user_topics entry of /register, as the user_topic event carries it. */
export interface WireUserTopic {
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: VisibilityPolicy;
}

/**
 * `emptyTopicName`: what the empty topic is called for clients without the
 * empty_topic_name capability (null for those with it).
 */
export function presentUserTopic(row: UserTopicRow, emptyTopicName: string | null): WireUserTopic {
  return {
    stream_id: row.stream_id,
    topic_name: row.topic_name === "" && emptyTopicName !== null ? emptyTopicName : row.topic_name,
    last_updated: int(row.last_updated),
    visibility_policy: row.visibility_policy,
  };
}

/** The legacy muted_topics triples, with the same renaming of the empty topic. */
export function presentMutedTopics(
  muted: ReadonlyArray<readonly [string, string, number]>,
  emptyTopicName: string | null,
): Array<[string, string, number]> {
  return muted.map(([channel, topic, timestamp]) => [
    channel,
    topic === "" && emptyTopicName !== null ? emptyTopicName : topic,
    timestamp,
  ]);
}
