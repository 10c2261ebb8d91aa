import type { Knex } from "knex";
import { canAccessChannelHistory, type ChannelWorld } from "../permissions/channel-access.js";

/**
 * Who hears about a change to a message (reactions, deletion): everyone who has it, plus,
 * for a channel whose history subscribers may read, the subscribers who can read it
 * (Zulip's subscriber_ids_with_stream_history_access).
 */
export async function messageAudience(
  knex: Knex,
  world: ChannelWorld,
  message: { id: number; stream_id: number | null },
): Promise<number[]> {
  const holders = (await knex("user_messages").where("message_id", message.id).pluck("user_id")) as number[];
  const audience = new Set(holders);
  const channel = message.stream_id === null ? undefined : world.channels.channel(message.stream_id);
  if (channel) {
    for (const userId of world.channels.activeSubscriberIds(world.realm, channel.id)) {
      const user = world.realm.user(userId);
      if (user && canAccessChannelHistory(world, user, channel)) audience.add(userId);
    }
  }
  return [...audience].sort((a, b) => a - b);
}
