import type { IncomingWebhookIntegration, WebhookInput, WebhookMessage } from "./types.js";

/**
 * The generic JSON integration (Zulip's zerver/webhooks/json): the payload, pretty-printed
 * as Python's json.dumps(payload, indent=2) prints it, in a ```json code block, to the
 * topic "JSON".
 */

/** json.dumps escapes every non-ASCII character (ensure_ascii). */
const asciiOnly = (text: string) =>
  text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

function messages(input: WebhookInput): WebhookMessage[] {
  const pretty = asciiOnly(JSON.stringify(input.payload.value, null, 2));
  return [{ topic: "JSON", content: `\`\`\`json\n${pretty}\n\`\`\`` }];
}

export const json: IncomingWebhookIntegration = {
  name: "json",
  displayName: "JSON formatter",
  webhookName: "JSON",
  allEventTypes: null,
  urlOptions: [],
  configOptions: [],
  messages,
};
