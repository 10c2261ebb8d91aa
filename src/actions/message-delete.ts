import type { App } from "../app.js";
import type { ChannelRow } from "../db/channel-rows.js";
import type { UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { removeFromIndex } from "../db/search.js";
import { badRequest } from "../errors.js";
import {
  accessChannelById,
  canAccessChannelHistory,
  channelViewerIds,
  type ChannelWorld,
} from "../permissions/channel-access.js";
import { accessMessage } from "../lib/message-access.js";
import type { RealmSnapshot } from "../world/realm.js";
import { streamEvents } from "../presenters/events/channels.js";
import { deleteMessageEvent } from "../presenters/events/messages.js";
import { userHasChannelPermission, userHasRealmPermission } from "../permissions/setting-permissions.js";
import { loadWorld } from "../cache/world.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";

/** What deleting a message needs to know of it. */
export interface DeletedMessage {
  id: number;
  sender_id: number;
  stream_id: number | null;
  topic: string;
  date_sent: number;
}

export const DELETED_MESSAGE_COLUMNS = ["id", "sender_id", "stream_id", "topic", "date_sent"] as const;

/**
 * Deletes messages of one conversation (one channel topic, or one direct conversation)
 * with their flags, reactions, submessages and search entries, and queues one delete_message event
 * (the flavour splits it for clients without bulk_message_deletion). Recipients: who
 * had the message, plus subscribers who could read it in the channel's history.
 */
export async function doDeleteMessages(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  messages: readonly DeletedMessage[],
): Promise<void> {
  if (messages.length === 0) return;
  const ids = messages.map((m) => m.id).sort((a, b) => a - b);
  const holders = new Set<number>();
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    for (const userId of (await tx
      .knex("user_messages")
      .whereIn("message_id", part)
      .distinct()
      .pluck("user_id")) as number[])
      holders.add(userId);
    await tx.knex("reactions").whereIn("message_id", part).delete();
    await tx.knex("submessages").whereIn("message_id", part).delete();
    // Files these messages linked stay; unlinked ones are swept after the retention period.
    await tx.knex("attachment_messages").whereIn("message_id", part).delete();
    await tx.knex("user_messages").whereIn("message_id", part).delete();
    await tx.knex("messages").whereIn("id", part).delete();
  }
  await removeFromIndex(tx.knex, ids);

  const first = messages[0]!;
  const channel = first.stream_id === null ? undefined : world.channels.channel(first.stream_id);
  const realmId = world.realm.id;
  if (channel) {
    for (const userId of world.channels.activeSubscriberIds(world.realm, channel.id)) {
      const user = world.realm.user(userId);
      if (user && canAccessChannelHistory(world, user, channel)) holders.add(userId);
    }
  }
  const event = deleteMessageEvent(
    ids,
    channel
      ? { id: channel.id, topic: first.topic, emptyTopicName: emptyTopicDisplayName(world.realm.realm) }
      : undefined,
  );
  tx.sendEventOnCommit(realmId, event, [...holders]);
  if (channel && channel.first_message_id !== null && ids.includes(channel.first_message_id))
    await refreshFirstMessageId(app, tx, world, channel);
}

/** Recomputes the channel's oldest message; if it changed, stores it and tells everyone who sees the channel. */
export async function refreshFirstMessageId(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  channel: ChannelRow,
): Promise<void> {
  const row = await tx
    .knex("messages")
    .where("stream_id", channel.id)
    .min<{ id: number | null }>("id as id")
    .first();
  const value = row?.id ?? null;
  if (value === channel.first_message_id) return;
  await tx.knex("streams").where("id", channel.id).update({ first_message_id: value });
  tx.afterCommit(() => app.channels.invalidate(channel.realm_id));
  tx.sendEventOnCommit(
    channel.realm_id,
    streamEvents.firstMessageId(channel, value),
    channelViewerIds(world.realm, channel, world.channels.activeSubscriberIds(world.realm, channel.id)),
  );
}

/**
 * Zulip's access_message_for_deletion: anyone in can_delete_any_message_group (of the
 * organization or of the message's channel); the sender (or its bot's owner) when in
 * can_delete_own_message_group, within message_content_delete_limit_seconds.
 */
export function requireCanDelete(
  world: ChannelWorld,
  user: UserRow,
  message: DeletedMessage,
  now: number,
): void {
  const { realm } = world;
  const channel = message.stream_id === null ? undefined : world.channels.channel(message.stream_id);
  const has = (setting: "can_delete_any_message_group" | "can_delete_own_message_group") =>
    userHasRealmPermission(realm, user, setting) ||
    (channel !== undefined && userHasChannelPermission(realm, user, channel, setting));
  if (has("can_delete_any_message_group")) return;
  const sender = realm.userOrSystemBot(message.sender_id);
  const own = message.sender_id === user.id || (sender !== undefined && sender.bot_owner_id === user.id);
  if (!own || !has("can_delete_own_message_group"))
    throw badRequest("You don't have permission to delete this message");
  const limit = realm.realm.message_content_delete_limit_seconds;
  if (limit !== null && now - message.date_sent > limit)
    throw badRequest("The time limit for deleting this message has passed");
}

/** DELETE /messages/{id}. */
export function checkDeleteMessage(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  messageId: number,
): Promise<void> {
  return app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, realm);
    await accessMessage({ knex: tx.knex, world, user }, messageId);
    const message = await tx
      .knex("messages")
      .where("id", messageId)
      .first<DeletedMessage>(...DELETED_MESSAGE_COLUMNS);
    requireCanDelete(world, user, message, tx.now);
    await doDeleteMessages(app, tx, world, [message]);
  });
}

/**
 * One round of POST /streams/{id}/delete_topic: deletes the topic's messages the
 * administrator can access, newest first, a batch per transaction, until done
 * (complete) or out of time (the caller repeats). Returns how many were deleted.
 */
export async function deleteTopicRound(
  app: App,
  realm: RealmSnapshot,
  admin: UserRow,
  channelId: number,
  topic: string,
  budgetMs = app.config.delete_topic_time_budget_ms,
): Promise<{ complete: boolean; deleted: number }> {
  const started = app.clock.nowMs();
  const batchSize = app.config.delete_topic_batch_size;
  let deleted = 0;
  for (;;) {
    const done = await app.db.transaction(async (tx) => {
      const world = await loadWorld(app, tx.knex, realm);
      const channel = accessChannelById(world, admin, channelId);
      const batch = tx
        .knex("messages as m")
        .where({ "m.stream_id": channel.id, "m.topic_key": topic.toLowerCase() })
        .orderBy("m.id", "desc")
        .limit(batchSize)
        .select<DeletedMessage[]>(DELETED_MESSAGE_COLUMNS.map((c) => `m.${c}`));
      // Without access to the channel's history, only the messages the admin received.
      if (!canAccessChannelHistory(world, admin, channel))
        batch.join("user_messages as um", "um.message_id", "m.id").where("um.user_id", admin.id);
      const messages = await batch;
      // Users' visibility policies for the topic stay, as in Zulip: they apply again if
      // the topic gets new messages.
      if (messages.length === 0) return true;
      await doDeleteMessages(app, tx, world, messages);
      deleted += messages.length;
      return false;
    });
    if (done) return { complete: true, deleted };
    if (app.clock.nowMs() - started >= budgetMs) return { complete: false, deleted };
  }
}
