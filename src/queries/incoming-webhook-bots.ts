import { INCOMING_WEBHOOK_INTEGRATIONS, integrationDescription } from "../lib/integrations.js";

/** Register's realm_incoming_webhook_bots: the integrations an incoming-webhook bot can use. */
export const fetchIncomingWebhookBotsState = (): Promise<Record<string, unknown>> =>
  Promise.resolve({ realm_incoming_webhook_bots: INCOMING_WEBHOOK_INTEGRATIONS.map(integrationDescription) });
