import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import type { DisplayRecipientUser, WireMessage } from "../wire/records.js";
import { truncateTopic } from "../lib/message-content.js";
import { doSendDirectMessageToUsers, doSendMessage } from "./message-send.js";

/** The client name of what outgoing-webhook bots post (Zulip's). */
export const WEBHOOK_RESPONSE_CLIENT = "OutgoingWebhookResponse";

/**
 * Zulip's send_response_message: the bot posts in the conversation of the message that
 * triggered it (the same topic; the same direct message participants). As in Zulip the
 * bot need not be subscribed to the channel: the trigger reached it there.
 */
export async function sendWebhookReply(
  app: App,
  tx: Tx,
  bot: UserRow,
  message: WireMessage,
  content: string,
) {
  const realm = await app.realms.get(tx.knex, bot.realm_id);
  if (message.type === "stream") {
    const channels = await app.channels.get(tx.knex, realm.id);
    const channel = channels.channel(message.stream_id!);
    if (!channel || bool(channel.is_archived)) return;
    await doSendMessage(app, tx, {
      sender: bot,
      channel,
      topic: truncateTopic(message.subject),
      content,
      client: WEBHOOK_RESPONSE_CLIENT,
      realm,
    });
    return;
  }
  // The trigger's participants still active (the bot is one of them either way).
  const recipients = (message.display_recipient as DisplayRecipientUser[])
    .map((user) => realm.user(user.id))
    .filter((user): user is UserRow => user !== undefined && bool(user.is_active));
  await doSendDirectMessageToUsers(app, tx, {
    sender: bot,
    recipients,
    content,
    client: WEBHOOK_RESPONSE_CLIENT,
  });
}
