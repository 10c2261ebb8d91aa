import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import type { WireMessage } from "../wire/records.js";
import type { PreparedMessage } from "../lib/prepared-message.js";
import { canAccessChannelContent } from "../permissions/channel-access.js";
import { BOT_TYPE } from "../world/bots.js";

/**
 * Which outgoing-webhook bots a new message triggers (Zulip's get_service_bot_events),
 * queued in the message's own transaction so that a committed message always gets its
 * deliveries and a rolled-back one none. The worker (outgoing-webhooks.ts) sends them.
 */

export type WebhookTrigger = "mention" | "direct_message";

/**
 * How long a new delivery may wait for the worker: one worker run (its queries) serves
 * every message committed within it, not one run per commit.
 */
const PICKUP_WINDOW_MS = 50;

const isOutgoingWebhookBot = (user: UserRow | undefined): user is UserRow =>
  user !== undefined && bool(user.is_active) && user.bot_type === BOT_TYPE.OUTGOING_WEBHOOK;

/** Bot user ID to trigger, for one message. */
export async function serviceBotTriggers(
  app: App,
  tx: Tx,
  message: PreparedMessage,
): Promise<Map<number, WebhookTrigger>> {
  const triggers = new Map<number, WebhookTrigger>();
  // Messages sent by bots trigger nothing: two bots must not answer each other forever.
  if (bool(message.sender.is_bot)) return triggers;
  const { realm, recipient } = message;
  if (recipient.type !== "stream") {
    for (const userId of message.userFlags.keys()) {
      if (isOutgoingWebhookBot(realm.user(userId))) triggers.set(userId, "direct_message");
    }
    return triggers;
  }
  // A mention (a group mention counts) of a bot that can read the channel, subscribed or not.
  const bots = [...(message.mentionedUserIds ?? [])].map((id) => realm.user(id)).filter(isOutgoingWebhookBot);
  if (bots.length === 0) return triggers;
  const world = { realm, channels: await app.channels.get(tx.knex, realm.id) };
  for (const bot of bots) {
    if (message.userFlags.has(bot.id) || canAccessChannelContent(world, bot, recipient.channel)) {
      triggers.set(bot.id, "mention");
    }
  }
  return triggers;
}

/** Queues the deliveries a sent message triggers; the worker wakes after the commit. */
export async function queueOutgoingWebhooks(
  app: App,
  tx: Tx,
  message: PreparedMessage,
  presented: WireMessage,
): Promise<void> {
  const triggers = await serviceBotTriggers(app, tx, message);
  if (triggers.size === 0) return;
  const dueMs = app.clock.nowMs();
  const payloadMessage = JSON.stringify(presented);
  await tx.knex("outgoing_webhook_deliveries").insert(
    [...triggers].map(([botId, trigger]) => ({
      realm_id: message.realm.id,
      bot_user_id: botId,
      message_id: presented.id,
      trigger,
      message: payloadMessage,
      failed_tries: 0,
      next_attempt_at: dueMs,
    })),
  );
  tx.afterCommit(() => app.outgoingWebhooks.noteDueSoon(PICKUP_WINDOW_MS));
}
