import type { Context } from "koa";
import type { App } from "../app.js";
import { notifyBotOwner, sendWebhookMessage } from "../actions/incoming-webhook.js";
import { authenticate, authenticateApiKey } from "../http/auth.js";
import { readBodyTextOrRefuse } from "../http/body-text.js";
import { countingFailures, routeNotFound, type Endpoint } from "../http/endpoint.js";
import { koaExchange } from "../http/exchange.js";
import { JsonableError, badRequest, missingArgument } from "../errors.js";
import { findIntegration, type IncomingWebhookIntegration } from "../lib/integrations.js";
import { malformedJson } from "../lib/integrations/errors.js";
import type { WebhookInput } from "../lib/integrations/types.js";
import { Wild } from "../lib/integrations/wild.js";
import { holdsLoneSurrogate, parseJsonText } from "../params.js";

/**
 * POST /api/v1/external/{integration}: a third-party service's webhook, posted as the
 * bot whose key is in the URL's `api_key` (or the form's, or HTTP Basic auth). Zulip
 * lets any active account's key post here, incoming-webhook bots included; the URL's
 * `stream` and `topic` say where, else the bot's owner gets a direct message. The body
 * is read here, after the route is known, so a malformed one gets the integration's
 * "Malformed JSON" answer rather than the generic body parser's; it is read as every
 * other body is (http/body-text.ts): inflated, and without a leading byte order mark.
 * Zulip refuses a BOM-prefixed payload as malformed JSON (its JSON parser does not skip
 * one); RFC 8259 lets a parser ignore it, and some senders (PowerShell, .NET) add one.
 */

const INVALID_JSON_NOTICE = (webhook: string) =>
  `Hi there! It looks like you tried to set up the Zulip ${webhook} integration,\n` +
  "but didn't correctly configure the webhook to send data in the JSON format\n" +
  "that this integration expects!";

/** Query parameters, then a form body's fields (Zulip reads both; the body wins). */
function requestParams(ctx: Context, body: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(ctx.querystring)) params.set(key, value);
  if (ctx.is("application/x-www-form-urlencoded")) {
    for (const [key, value] of new URLSearchParams(body)) params.set(key, value);
  }
  return params;
}

function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw malformedJson();
  }
  if (holdsLoneSurrogate(text, value)) throw malformedJson();
  return value;
}

/** The payload: the JSON body, or for Slack-style integrations a form's `payload` field. */
function payloadText(
  integration: IncomingWebhookIntegration,
  ctx: Context,
  body: string,
  params: Map<string, string>,
) {
  if (integration.payloadSource !== "json-or-form-payload" || ctx.is("application/json")) return body;
  const field = params.get("payload");
  if (field === undefined) throw missingArgument("payload");
  return field;
}

/** Zulip's only_events / exclude_events: JSON lists of shell-style patterns. */
function eventFilter(params: Map<string, string>): (eventType: string) => boolean {
  const patterns = (name: string): RegExp[] | null => {
    const raw = params.get(name);
    if (raw === undefined) return null;
    const list = parseJsonText(raw, name);
    if (!Array.isArray(list) || !list.every((p) => typeof p === "string")) {
      throw badRequest(`${name} is not a list`);
    }
    return list.map(globToRegExp);
  };
  const only = patterns("only_events");
  const exclude = patterns("exclude_events");
  return (eventType) =>
    (only === null || only.some((re) => re.test(eventType))) &&
    (exclude === null || !exclude.some((re) => re.test(eventType)));
}

/** Python's fnmatch: *, ?, [seq] and [!seq]. */
function globToRegExp(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else if (c === "[" && pattern.indexOf("]", i + 2) > i) {
      const end = pattern.indexOf("]", i + 2);
      let set = pattern.slice(i + 1, end).replace(/\\/g, "\\\\");
      if (set.startsWith("!")) set = `^${set.slice(1)}`;
      out += `[${set}]`;
      i = end;
    } else out += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, "s");
}

async function handle(app: App, ctx: Context, integration: IncomingWebhookIntegration): Promise<void> {
  const body = await readBodyTextOrRefuse(ctx.req, app.config.body_limit_bytes);
  const params = requestParams(ctx, body);
  const apiKey = params.get("api_key");
  const header = ctx.get("authorization");
  const options = { allowIncomingWebhookBots: true };
  if (apiKey === undefined && !header) throw missingArgument("api_key");
  const { user, realm } = await countingFailures(app, koaExchange(ctx, false), () =>
    apiKey !== undefined
      ? authenticateApiKey(app, apiKey, null, options)
      : authenticate(app, header, options),
  );
  ctx.state.userId = user.id;
  ctx.set(app.rateLimits.enforce("api_by_user", String(user.id)));

  let payload: unknown;
  try {
    payload = parseJson(payloadText(integration, ctx, body, params));
  } catch (err) {
    if (err instanceof JsonableError && err.code === "INVALID_JSON") {
      await notifyBotOwner(app, user, realm, INVALID_JSON_NOTICE(integration.webhookName));
    }
    throw err;
  }
  const input: WebhookInput = {
    payload: new Wild(payload, integration.webhookName),
    header: (name) => {
      const value = ctx.headers[name.toLowerCase()];
      return typeof value === "string" ? value : undefined;
    },
    param: (name) => params.get(name),
    userSpecifiedTopic: params.get("topic"),
  };
  const wanted = eventFilter(params);
  for (const message of integration.messages(input)) {
    if (message.eventType !== undefined && !wanted(message.eventType)) continue;
    await sendWebhookMessage(app, user, realm, {
      stream: params.get("stream"),
      topic: input.userSpecifiedTopic ?? message.topic,
      content: message.content,
      client: `Zulip${integration.webhookName}Webhook`,
    });
  }
}

export const incomingWebhook: Endpoint = {
  method: "POST",
  path: "/external/:integration",
  auth: "user",
  intPathParams: new Set(),
  // Reads its own body (above); the default parser never sees it.
  streamsBody: true,
  paramNames: ["integration", "api_key", "stream", "topic", "only_events", "exclude_events"],
  async run(app, ctx, pathParams) {
    const integration = findIntegration(pathParams.integration ?? "");
    if (!integration) throw routeNotFound();
    await handle(app, ctx, integration);
    ctx.status = 200;
    ctx.body = { result: "success", msg: "" };
  },
};
