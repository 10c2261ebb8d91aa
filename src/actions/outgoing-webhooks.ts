import type { Knex } from "knex";
import type { App } from "../app.js";
import { realmUrl, type Config } from "../config.js";
import { claimable, claimRows, releaseClaim } from "../db/claims.js";
import { bool, int, type BotServiceRow, type DbBigInt, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { JsonableError } from "../errors.js";
import type { DisplayRecipientUser, WireMessage } from "../wire/records.js";
import { botServices } from "../lib/bots.js";
import { channelMessageUrl, directMessageUrl } from "../lib/message-links.js";
import { postWebhook, type WebhookOutcome } from "../lib/webhook-http.js";
import type { AllowedPrivateHosts } from "../lib/webhook-targets.js";
import { BOT_TYPE } from "../world/bots.js";
import { doSendDirectMessage } from "./message-send.js";
import { sendWebhookReply, WEBHOOK_RESPONSE_CLIENT } from "./outgoing-webhook-reply.js";
import { webhookReplyContent, webhookRequestBody } from "../lib/outgoing-webhook-payload.js";

/**
 * The outgoing webhook worker (Zulip's outgoing_webhooks queue and do_rest_call), run by
 * the app's delivery timer, never on a request's path. Each due delivery is sent in the
 * background; its row stays until the attempt's result is written, so a delivery under
 * way when the server stops is sent again after the restart (at-least-once).
 *
 * Several processes (workers; servers on several machines over one PostgreSQL) all run
 * this worker: each claims a delivery (db/claims.ts) before sending it, so only one sends
 * it. A claim lasts longer than any attempt (webhookLeaseMs); one left by a process that
 * died is taken over when it runs out.
 *
 * As in Zulip: a timeout or connection error is retried (MAX_REQUEST_RETRIES more times),
 * then the bot says "Failure! Bot is unavailable" and its owner is told; any other answer
 * than 2xx is not retried: the failure is posted and the owner told the status code.
 */

/** Zulip's MAX_REQUEST_RETRIES. */
export const MAX_REQUEST_RETRIES = 3;
/** Deliveries sent at once; the rest start as these finish. */
export const MAX_DELIVERIES_IN_FLIGHT = 256;
/** How long a finished delivery's result waits for others to share its transaction. */
export const WEBHOOK_RESULT_WINDOW_MS = 100;

/**
 * How long a claim on a delivery lasts: its attempt (at most the timeout), then its
 * result's transaction, with room to spare. Only a claimer that died leaves one to run out.
 */
export const webhookLeaseMs = (config: Config) => 2 * config.outgoing_webhook_timeout_ms + 60_000;

const TABLE = "outgoing_webhook_deliveries";

interface DeliveryRow {
  id: number;
  realm_id: number;
  bot_user_id: number;
  message_id: number;
  trigger: string;
  message: string;
  failed_tries: number;
  next_attempt_at: DbBigInt;
}

/**
 * Starts due deliveries not already under way, up to MAX_DELIVERIES_IN_FLIGHT at once; returns when
 * the next retry is due (seconds). Due deliveries beyond the bound start when one under
 * way finishes (it wakes the timer), so a backlog never spins the timer.
 */
export async function deliverDueWebhooks(app: App): Promise<number | null> {
  const inFlight = app.webhookDeliveries;
  const nowMs = app.clock.nowMs();
  if (inFlight.size < MAX_DELIVERIES_IN_FLIGHT) {
    // The first MAX_DELIVERIES_IN_FLIGHT due rows nobody holds include at least as many not
    // under way here as there is room. Their IDs only: rows under way are not read again.
    const due = (query: Knex.QueryBuilder) => query.where("next_attempt_at", "<=", nowMs);
    const dueIds = await claimable(due(app.knex(TABLE)), nowMs)
      .orderBy("id")
      .limit(MAX_DELIVERIES_IN_FLIGHT)
      .pluck<number[]>("id");
    const wantedIds = dueIds
      .filter((id) => !inFlight.has(id))
      .slice(0, MAX_DELIVERIES_IN_FLIGHT - inFlight.size);
    const lease = { nowMs, leaseMs: webhookLeaseMs(app.config) };
    // Another process may have claimed some since: only those this one gets are sent.
    const startingIds =
      wantedIds.length === 0
        ? []
        : await app.db.transaction((tx) => claimRows(tx.knex, TABLE, wantedIds, lease, due));
    const starting =
      startingIds.length === 0
        ? []
        : await app.knex<DeliveryRow>(TABLE).whereIn("id", startingIds).orderBy("id");
    const services = await botServices(app.knex, [...new Set(starting.map((row) => row.bot_user_id))]);
    for (const row of starting) {
      const service = services.get(row.bot_user_id)?.[0];
      const attempt = deliverOne(app, row, service, app.webhookAllowedHosts)
        .catch((err: unknown) => app.logger.error(`outgoing webhook delivery ${row.id} failed`, err))
        .finally(() => {
          const wasFull = inFlight.size >= MAX_DELIVERIES_IN_FLIGHT;
          inFlight.delete(row.id);
          if (wasFull) app.outgoingWebhooks.noteDue(app.clock.nowMs() / 1000);
        });
      inFlight.set(row.id, attempt);
    }
  }
  // The next retry, or the end of a claim (another process's, or one a dead process left).
  // One read after the other: together they took a second read connection, which an
  // idle server then kept.
  const retry = await app
    .knex(TABLE)
    .where("next_attempt_at", ">", nowMs)
    .first<{ next: DbBigInt | null } | undefined>(app.knex.raw("MIN(next_attempt_at) AS next"));
  const leaseEnd = await app
    .knex(TABLE)
    .where("claimed_until", ">", nowMs)
    .first<{ next: DbBigInt | null } | undefined>(app.knex.raw("MIN(claimed_until) AS next"));
  const times = [retry?.next, leaseEnd?.next].filter((t) => t != null).map((t) => int(t));
  return times.length === 0 ? null : Math.min(...times) / 1000;
}

/** Resolves when no delivery is under way (shutdown; tests). */
export async function webhookDeliveriesIdle(app: App): Promise<void> {
  while (app.webhookDeliveries.size > 0) await Promise.all(app.webhookDeliveries.values());
}

async function deliverOne(
  app: App,
  row: DeliveryRow,
  service: BotServiceRow | undefined,
  allowed: AllowedPrivateHosts,
): Promise<void> {
  const realm = await app.realms.get(app.knex, row.realm_id);
  const bot = realm.user(row.bot_user_id);
  const message = JSON.parse(row.message) as WireMessage;
  if (!bot || !bool(bot.is_active) || bot.bot_type !== BOT_TYPE.OUTGOING_WEBHOOK || !service) {
    // Deactivated, or no longer an outgoing webhook: nothing to deliver to.
    return finish(app, row);
  }
  const request = webhookRequestBody(service, bot, realm.realm.string_id, row.trigger, message);
  if (!request) {
    return finish(app, row, (tx) =>
      failWithMessage(app, tx, bot, message, "Slack outgoing webhooks don't support private messages."),
    );
  }
  const startMs = Date.now();
  const outcome = await postWebhook({
    url: service.base_url,
    ...request,
    timeoutMs: app.config.outgoing_webhook_timeout_ms,
    allowed,
  });
  app.logger.info(
    `outgoing webhook: bot ${bot.id}@${realm.realm.string_id} message ${row.message_id} ` +
      `${describe(outcome)} in ${Date.now() - startMs} ms (attempt ${row.failed_tries + 1})`,
  );
  await handleOutcome(app, row, bot, message, service.interface, outcome);
}

const describe = (outcome: WebhookOutcome) =>
  outcome.kind === "response" ? `status ${outcome.status}` : outcome.kind;

/**
 * Deletes the delivery and does `effects` in one transaction (unless already done),
 * batched with other finished deliveries (app.webhookResults); a delivery with nothing
 * to post is deleted with the next group commit of sent messages, if one comes first.
 */
function finish(app: App, row: DeliveryRow, effects?: (tx: Tx) => Promise<void>): Promise<void> {
  return app.webhookResults.submit(effects ? { id: row.id, effects } : { id: row.id });
}

/** A finished delivery: its row goes, and what its result posts, if anything. */
export interface WebhookResult {
  id: number;
  effects?: (tx: Tx) => Promise<void>;
}

/** One finished delivery's writes, inside a batch's transaction; harmless when repeated. */
export async function writeWebhookResult(tx: Tx, result: WebhookResult): Promise<void> {
  const deleted = await tx.knex(TABLE).where({ id: result.id }).delete();
  if (deleted > 0) await result.effects?.(tx);
}

async function handleOutcome(
  app: App,
  row: DeliveryRow,
  bot: UserRow,
  message: WireMessage,
  iface: number,
  outcome: WebhookOutcome,
): Promise<void> {
  switch (outcome.kind) {
    case "response": {
      if (outcome.status >= 200 && outcome.status < 300) {
        const content = webhookReplyContent(iface, outcome.body);
        if (content === null) return finish(app, row);
        return finish(app, row, async (tx) => {
          try {
            await sendWebhookReply(app, tx, bot, message, content);
          } catch (err) {
            if (!(err instanceof JsonableError)) throw err;
            await failWithMessage(app, tx, bot, message, err.message);
            await notifyBotOwner(app, tx, bot, message, {
              failureMessage:
                "The outgoing webhook server attempted to send a message in Zulip, but that request " +
                `resulted in the following error:\n> ${err.message}`,
              responseContent: outcome.body,
            });
          }
        });
      }
      return finish(app, row, async (tx) => {
        await failWithMessage(app, tx, bot, message, `Third party responded with ${outcome.status}`);
        await notifyBotOwner(app, tx, bot, message, {
          statusCode: outcome.status,
          responseContent: outcome.body,
        });
      });
    }
    case "refused":
      // What Zulip's outgoing proxy (Smokescreen) answers for a private or disallowed target.
      app.logger.warn(`outgoing webhook: bot ${bot.id}: target refused (private or reserved address)`);
      return finish(app, row, async (tx) => {
        await failWithMessage(app, tx, bot, message, "Third party responded with 407");
        await notifyBotOwner(app, tx, bot, message, { statusCode: 407 });
      });
    case "timeout":
    case "connection-error": {
      const failureMessage =
        outcome.kind === "timeout"
          ? `Request timed out after ${app.config.outgoing_webhook_timeout_ms / 1000} seconds.`
          : "A connection error occurred. Is my bot server down?";
      const failedTries = row.failed_tries + 1;
      if (failedTries > MAX_REQUEST_RETRIES) {
        return finish(app, row, async (tx) => {
          await failWithMessage(app, tx, bot, message, "Bot is unavailable");
          await notifyBotOwner(app, tx, bot, message, { failureMessage });
        });
      }
      const dueMs = app.clock.nowMs() + app.config.outgoing_webhook_retry_delay_ms * 2 ** (failedTries - 1);
      await app.db.transaction(async (tx) => {
        // Released: whichever process is free when the retry is due sends it.
        await tx
          .knex(TABLE)
          .where({ id: row.id })
          .update({ failed_tries: failedTries, next_attempt_at: dueMs, ...releaseClaim });
        tx.afterCommit(() => app.outgoingWebhooks.noteDue(dueMs / 1000));
      });
      return;
    }
  }
}

/** Zulip's fail_with_message: "Failure! …" in the conversation; an error sending it is dropped. */
async function failWithMessage(app: App, tx: Tx, bot: UserRow, message: WireMessage, text: string) {
  try {
    await sendWebhookReply(app, tx, bot, message, `Failure! ${text}`);
  } catch (err) {
    if (!(err instanceof JsonableError)) throw err;
  }
}

/** Zulip's get_message_url: the triggering message in its conversation. */
function messageUrl(app: App, message: WireMessage): string {
  const base = realmUrl(app.config);
  if (message.type === "stream") {
    const name = message.display_recipient as string;
    return channelMessageUrl(base, { id: message.stream_id!, name }, message.subject, message.id);
  }
  const ids = (message.display_recipient as DisplayRecipientUser[]).map((user) => user.id);
  return directMessageUrl(base, ids, message.id);
}

/** Zulip's notify_bot_owner: a direct message from the bot to its owner, in Zulip's words. */
async function notifyBotOwner(
  app: App,
  tx: Tx,
  bot: UserRow,
  message: WireMessage,
  what: { statusCode?: number; responseContent?: string; failureMessage?: string },
): Promise<void> {
  const realm = await app.realms.get(tx.knex, bot.realm_id);
  const owner = bot.bot_owner_id === null ? undefined : realm.user(bot.bot_owner_id);
  if (!owner || !bool(owner.is_active)) return;
  let content = `[A message](${messageUrl(app, message)}) to your bot @_**${bot.full_name}** triggered an outgoing webhook.`;
  if (what.failureMessage) content += `\n${what.failureMessage}`;
  else if (what.statusCode === 407)
    content += "\nThe URL configured for the webhook is for a private or disallowed network.";
  else if (what.statusCode) content += `\nThe webhook got a response with status code *${what.statusCode}*.`;
  if (what.responseContent) {
    content += `\nThe response contains the following payload:\n\`\`\`\n${pythonBytesRepr(what.responseContent)}\n\`\`\``;
  }
  try {
    await doSendDirectMessage(app, tx, {
      sender: bot,
      recipient: owner,
      content,
      client: WEBHOOK_RESPONSE_CLIENT,
    });
  } catch (err) {
    if (!(err instanceof JsonableError)) throw err;
  }
}

/** Python's repr() of the response's bytes (Zulip prints `response.content!r`): b'…'. */
export function pythonBytesRepr(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  const quote = bytes.includes(0x27) && !bytes.includes(0x22) ? '"' : "'";
  let out = "";
  for (const byte of bytes) {
    if (byte === 0x5c) out += "\\\\";
    else if (byte === quote.charCodeAt(0)) out += `\\${quote}`;
    else if (byte === 0x0a) out += "\\n";
    else if (byte === 0x0d) out += "\\r";
    else if (byte === 0x09) out += "\\t";
    else if (byte < 0x20 || byte >= 0x7f) out += `\\x${byte.toString(16).padStart(2, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return `b${quote}${out}${quote}`;
}
