import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import { JsonableError, badRequest } from "../errors.js";
import type { RealmSnapshot } from "../world/realm.js";
import { checkSendMessage, doSendDirectMessage } from "./message-send.js";
import { notificationBot } from "./notification-bot.js";

/**
 * Posting an integration's message (Zulip's check_send_webhook_message): to the URL's
 * `stream` (a name, or an ID when all digits) under the given topic, or, without a
 * stream, as a direct message to the bot's owner. A channel that does not exist posts
 * nothing: the owner is told instead, and the request still succeeds, as in Zulip.
 */

export interface WebhookPost {
  readonly stream: string | undefined;
  readonly topic: string;
  readonly content: string;
  /** The client name, e.g. "ZulipGitHubWebhook". */
  readonly client: string;
}

export async function sendWebhookMessage(
  app: App,
  sender: UserRow,
  realm: RealmSnapshot,
  post: WebhookPost,
): Promise<void> {
  const { stream, topic, content, client } = post;
  if (stream === undefined) {
    const owner = ownerOf(realm, sender);
    // Zulip assumes a bot here; a person's key must name a channel.
    if (!owner) throw badRequest("Missing 'stream' argument", { var_name: "stream" });
    await checkSendMessage(app, sender, { type: "private", to: JSON.stringify([owner.id]), content, client });
    return;
  }
  const byId = /^\d+$/.test(stream);
  try {
    await checkSendMessage(app, sender, {
      type: "stream",
      to: byId ? stream : JSON.stringify(stream),
      topic,
      content,
      client,
    });
  } catch (err) {
    if (!(err instanceof JsonableError) || err.code !== "STREAM_DOES_NOT_EXIST") throw err;
    await notifyOwnerOfMissingChannel(app, sender, realm, byId ? { id: stream } : { name: stream.trim() });
  }
}

const ownerOf = (realm: RealmSnapshot, sender: UserRow) => {
  if (!bool(sender.is_bot) || sender.bot_owner_id === null) return undefined;
  const owner = realm.user(sender.bot_owner_id);
  return owner && bool(owner.is_active) ? owner : undefined;
};

/** Zulip's send_pm_if_empty_stream for a channel that does not exist: Notification Bot tells the owner. */
async function notifyOwnerOfMissingChannel(
  app: App,
  bot: UserRow,
  realm: RealmSnapshot,
  channel: { id: string } | { name: string },
): Promise<void> {
  const identity = `\`${bot.delivery_email}\``;
  const content =
    "id" in channel
      ? `Your bot ${identity} tried to send a message to channel ID ${channel.id}, but there is no channel with that ID.`
      : `Your bot ${identity} tried to send a message to channel #**${channel.name}**, but that channel does not exist. Click [here](#channels/new) to create it.`;
  await notifyBotOwner(app, bot, realm, content);
}

/** Zulip's BOT_OWNER_STREAM_ALERT_WAITPERIOD: at most one notice per bot this often. */
const NOTICE_INTERVAL_MS = 60_000;
/** When each bot's owner was last told, per server (Zulip keeps it as last_reminder). */
const lastNotice = new WeakMap<App, Map<number, number>>();

/**
 * Zulip's send_rate_limited_pm_notification_to_bot_owner: Notification Bot tells the
 * bot's owner, at most once a minute per bot, so a misconfigured service cannot flood them.
 */
export async function notifyBotOwner(app: App, bot: UserRow, realm: RealmSnapshot, content: string) {
  const owner = ownerOf(realm, bot);
  if (!owner) return;
  let sent = lastNotice.get(app);
  if (!sent) lastNotice.set(app, (sent = new Map<number, number>()));
  const now = app.clock.nowMs();
  const last = sent.get(bot.id);
  if (last !== undefined && now - last <= NOTICE_INTERVAL_MS) return;
  sent.set(bot.id, now);
  try {
    await app.db.transaction(async (tx) => {
      const sender = await notificationBot(app, tx, realm.id);
      await doSendDirectMessage(app, tx, { sender, recipient: owner, content });
    });
  } catch (err) {
    // A notice that cannot be sent never changes the webhook's own answer.
    if (!(err instanceof JsonableError)) throw err;
  }
}
