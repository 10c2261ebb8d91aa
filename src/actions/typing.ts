import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { accessChannelById } from "../permissions/channel-access.js";
import type { RealmSnapshot } from "../world/realm.js";
import { loadWorld } from "../cache/world.js";
import { typingEvents } from "../presenters/events/typing.js";

/** Typing notifications: ephemeral events, published at once and never stored. */

export type TypingOp = "start" | "stop";

/** Zulip's MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS: larger channels get no typing events. */
const MAX_CHANNEL_SIZE_FOR_TYPING = 100;

/** Typing in a channel topic, to the channel's other subscribers (small channels only). */
export async function checkSendChannelTyping(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  op: TypingOp,
  channelId: number,
  topic: string,
): Promise<void> {
  const sender = { user_id: user.id, email: user.email };
  const world = await loadWorld(app, app.knex, realm);
  const channel = accessChannelById(world, user, channelId);
  const subscribers = world.channels.activeSubscriberIds(realm, channel.id);
  if (subscribers.length <= MAX_CHANNEL_SIZE_FOR_TYPING) {
    app.db.publish(
      realm.id,
      typingEvents.channel(op, sender, channel.id, topic),
      subscribers.filter((id) => id !== user.id),
    );
  }
}

/** Typing in a direct conversation, to every participant, the sender included. */
export function checkSendDirectTyping(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  op: TypingOp,
  to: readonly number[],
): void {
  if (to.length === 0) throw badRequest("Empty 'to' list");
  const sender = { user_id: user.id, email: user.email };
  const recipients = [];
  for (const id of to) {
    const target = realm.user(id);
    if (!target || !bool(target.is_active)) throw badRequest(`Invalid user ID ${id}`);
    recipients.push({ user_id: target.id, email: target.email });
  }
  if (!recipients.some((r) => r.user_id === user.id)) recipients.push(sender);
  app.db.publish(
    realm.id,
    typingEvents.direct(op, sender, recipients),
    recipients.map((r) => r.user_id),
  );
}
