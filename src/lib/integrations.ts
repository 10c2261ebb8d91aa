import { alertmanager } from "./integrations/alertmanager.js";
import { github } from "./integrations/github.js";
import { gitlab } from "./integrations/gitlab.js";
import { json } from "./integrations/json.js";
import { slackIncoming } from "./integrations/slack-incoming.js";
import type { IncomingWebhookIntegration } from "./integrations/types.js";

export type { IncomingWebhookIntegration, IntegrationConfigOption } from "./integrations/types.js";

/**
 * The incoming-webhook integrations chatd serves (Zulip's INCOMING_WEBHOOK_INTEGRATIONS):
 * each posts through /api/v1/external/{name}, and POST /bots with bot_type 2 and a
 * service_name must name one of them, with its config options in config_data.
 */
export const INCOMING_WEBHOOK_INTEGRATIONS: readonly IncomingWebhookIntegration[] = [
  alertmanager,
  github,
  gitlab,
  json,
  slackIncoming,
];

export const findIntegration = (name: string) => INCOMING_WEBHOOK_INTEGRATIONS.find((i) => i.name === name);

/** Register's realm_incoming_webhook_bots entry of an integration. */
export const integrationDescription = (integration: IncomingWebhookIntegration) => ({
  name: integration.name,
  display_name: integration.displayName,
  all_event_types: integration.allEventTypes === null ? null : [...integration.allEventTypes],
  url_options: integration.urlOptions.map((o) => ({ key: o.key, label: o.label, input_type: o.inputType })),
  config_options: integration.configOptions.map((o) => ({
    key: o.key,
    label: o.label,
    validator: o.validatorName,
  })),
});
