import type { Knex } from "knex";
import { int, type DbBigInt } from "../db/rows.js";
import type { VisibilityPolicy } from "../wire/events.js";

/** Zulip's UserTopic.VisibilityPolicy. */
export const VISIBILITY = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

export const VISIBILITY_POLICIES: readonly VisibilityPolicy[] = [0, 1, 2, 3];

/** A user_topics row: topics match case-insensitively through topic_key. */
export interface UserTopicRow {
  user_id: number;
  stream_id: number;
  /** The topic as the user first named it. */
  topic_name: string;
  topic_key: string;
  visibility_policy: VisibilityPolicy;
  last_updated: DbBigInt;
}

export type UserTopicWithChannel = UserTopicRow & { stream_name: string };

/** SQLite's bound-parameter limit leaves room for this many user IDs per query. */
const USER_CHUNK = 500;

/** Topic policies of these users, oldest first, archived channels left out. */
function userTopicsQuery(knex: Knex, userIds: readonly number[], policy?: VisibilityPolicy) {
  const query = knex("user_topics as ut")
    .join("streams as s", "s.id", "ut.stream_id")
    .whereIn("ut.user_id", userIds)
    .where("s.is_archived", false)
    .orderBy("ut.rowid")
    .select<UserTopicWithChannel[]>("ut.*", "s.name as stream_name");
  if (policy !== undefined) query.where("ut.visibility_policy", policy);
  return query;
}

/**
 * The user's topic policies in the order they were first set (Zulip's get_user_topics),
 * archived channels left out; one policy only if given.
 */
export async function userTopicsOf(
  knex: Knex,
  userId: number,
  policy?: VisibilityPolicy,
): Promise<UserTopicWithChannel[]> {
  return userTopicsQuery(knex, [userId], policy);
}

type MutedTopic = [string, string, number];

/** The legacy muted_topics list (Zulip's get_topic_mutes): [channel name, topic, timestamp]. */
export async function mutedTopicsOf(knex: Knex, userId: number): Promise<MutedTopic[]> {
  return (await mutedTopicsByUser(knex, [userId])).get(userId)!;
}

/** mutedTopicsOf for many users at once (a topic move tells each of them), in chunks. */
export async function mutedTopicsByUser(
  knex: Knex,
  userIds: readonly number[],
): Promise<Map<number, MutedTopic[]>> {
  const lists = new Map<number, MutedTopic[]>(userIds.map((id) => [id, []]));
  for (let i = 0; i < userIds.length; i += USER_CHUNK) {
    const rows = await userTopicsQuery(knex, userIds.slice(i, i + USER_CHUNK), VISIBILITY.MUTED);
    for (const row of rows)
      lists.get(row.user_id)!.push([row.stream_name, row.topic_name, int(row.last_updated)]);
  }
  return lists;
}

/** Everyone's policy for one topic of a channel, by user. */
export async function topicPolicies(
  knex: Knex,
  channelId: number,
  topic: string,
): Promise<Map<number, UserTopicRow>> {
  const rows = await knex<UserTopicRow>("user_topics").where({
    stream_id: channelId,
    topic_key: topic.toLowerCase(),
  });
  return new Map(rows.map((row) => [row.user_id, row]));
}
