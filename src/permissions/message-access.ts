import type { UserRow } from "../db/rows.js";
import { canAccessChannelHistory, type ChannelWorld } from "./channel-access.js";

/**
 * May the user read the message (Zulip's has_message_access)? A message it received
 * (has a user_messages row for), or a channel message whose channel history it may
 * read. Direct messages only by receipt.
 */
export function hasMessageAccess(
  world: ChannelWorld,
  user: UserRow,
  message: { stream_id: number | null },
  received: boolean,
): boolean {
  if (received) return true;
  if (message.stream_id === null) return false;
  const channel = world.channels.channel(message.stream_id);
  return channel !== undefined && canAccessChannelHistory(world, user, channel);
}
