/**
 * The incoming-webhook integrations chatd serves (Zulip's INCOMING_WEBHOOK_INTEGRATIONS),
 * as far as creating their bots needs: POST /bots with bot_type 2 and a service_name
 * must name one of them, with its config options in config_data.
 */

export interface IntegrationConfigOption {
  readonly key: string;
  readonly label: string;
  /** An error message for an invalid value, or null when the value is fine. */
  readonly validate: (key: string, value: string) => string | null;
}

export interface IncomingWebhookIntegration {
  /** As in the URL /api/v1/external/{name}. */
  readonly name: string;
  readonly configOptions: readonly IntegrationConfigOption[];
}

/** None yet: integrations register here as they are added. */
export const INCOMING_WEBHOOK_INTEGRATIONS: readonly IncomingWebhookIntegration[] = [];

export const findIntegration = (name: string) => INCOMING_WEBHOOK_INTEGRATIONS.find((i) => i.name === name);
