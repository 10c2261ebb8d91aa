import type { BotServiceRow, UserRow } from "../db/rows.js";
import type { WireMessage } from "../wire/records.js";

/**
 * What an outgoing webhook sends and how its answer is read (Zulip's
 * GenericOutgoingWebhookService and SlackOutgoingWebhookService).
 */

export const INTERFACE = { GENERIC: 1, SLACK: 2 } as const;

/**
 * The request body: SPEC's payload as JSON (data, message, bot_email, bot_full_name,
 * token, trigger: Zulip's order), or Slack's outgoing-webhook form. Null when the
 * interface cannot carry the message (Slack's has no direct messages).
 */
export function webhookRequestBody(
  service: BotServiceRow,
  bot: UserRow,
  realmStr: string,
  trigger: string,
  message: WireMessage,
): { body: string; contentType: string } | null {
  if (service.interface === INTERFACE.SLACK) {
    if (message.type === "private") return null;
    const form = new URLSearchParams([
      ["token", service.token],
      ["team_id", realmStr],
      ["team_domain", message.sender_email.slice(message.sender_email.lastIndexOf("@") + 1).toLowerCase()],
      ["channel_id", String(message.stream_id)],
      ["channel_name", message.display_recipient as string],
      ["timestamp", String(message.timestamp)],
      ["user_id", String(message.sender_id)],
      ["user_name", message.sender_full_name],
      ["text", message.content],
      ["trigger_word", trigger],
      ["service_id", String(bot.id)],
    ]);
    return { body: form.toString(), contentType: "application/x-www-form-urlencoded" };
  }
  const payload = {
    data: message.content,
    message,
    bot_email: bot.email,
    bot_full_name: bot.full_name,
    token: service.token,
    trigger,
  };
  return { body: JSON.stringify(payload), contentType: "application/json" };
}

/**
 * The reply a 2xx answer asks the bot to post, or null for none: `{"response_not_required":
 * true}`, an answer without content, an empty or blank content, and (chatd's choice, where
 * Zulip posts "Failure! Invalid JSON in response") a body that is not a JSON object.
 */
export function webhookReplyContent(iface: number, body: string): string | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return null;
  const answer = json as Record<string, unknown>;
  let content: unknown = null;
  if (iface === INTERFACE.SLACK) {
    if ("text" in answer) content = answer.text;
  } else if (answer.response_not_required) {
    return null;
  } else if ("response_string" in answer) {
    content = answer.response_string;
  } else if ("content" in answer) {
    content = answer.content;
  }
  if (content === null || content === undefined) return null;
  const text = typeof content === "string" ? content : JSON.stringify(content);
  return text.trim() === "" ? null : text;
}
