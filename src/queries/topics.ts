import type { Knex } from "knex";
import type { ChannelRow } from "../db/channel-rows.js";
import type { UserRow } from "../db/rows.js";
import { canAccessChannelHistory, type ChannelWorld } from "../permissions/channel-access.js";

/** Reads of a channel's topics. */

export interface TopicHead {
  /** The topic's newest message. */
  maxId: number;
  /** The topic's name as in that message. */
  name: string;
}

/**
 * The channel's topics, newest first, each named as in its most recent message. Without
 * access to the channel's history, only the topics of messages the user received.
 */
export async function channelTopics(
  knex: Knex,
  world: ChannelWorld,
  user: UserRow,
  channel: ChannelRow,
): Promise<TopicHead[]> {
  const latest = knex("messages as m")
    .where("m.stream_id", channel.id)
    .groupBy("m.topic_key")
    .select<Array<{ max_id: number }>>(knex.raw("max(m.id) as max_id"));
  if (!canAccessChannelHistory(world, user, channel))
    latest.join("user_messages as um", "um.message_id", "m.id").where("um.user_id", user.id);
  const ids = (await latest).map((row) => Number(row.max_id));
  const names = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await knex("messages")
      .whereIn("id", ids.slice(i, i + 500))
      .select<Array<{ id: number; topic: string }>>("id", "topic");
    for (const row of rows) names.set(row.id, row.topic);
  }
  return ids.sort((a, b) => b - a).map((id) => ({ maxId: id, name: names.get(id) ?? "" }));
}

/** How many messages a topic of a channel holds (the CLI's progress bar). */
export async function countTopicMessages(knex: Knex, channelId: number, topic: string): Promise<number> {
  const rows = await knex("messages")
    .where({ stream_id: channelId, topic_key: topic.toLowerCase() })
    .count<Array<{ n: number }>>("* as n");
  return Number(rows[0]?.n ?? 0);
}
