import type { Wild } from "./wild.js";

/** What an integration reads from one request to its URL. */
export interface WebhookInput {
  /** The parsed payload. */
  readonly payload: Wild;
  /** A request header, case-insensitive. */
  header(name: string): string | undefined;
  /** A query-string (or form) parameter: the integration's url_options. */
  param(name: string): string | undefined;
  /** The URL's `topic`, which replaces the integration's own topic. */
  readonly userSpecifiedTopic: string | undefined;
}

/** One message an integration posts (Zulip's check_send_webhook_message arguments). */
export interface WebhookMessage {
  readonly topic: string;
  readonly content: string;
  /** The event type, for the `only_events` / `exclude_events` filters. */
  readonly eventType?: string;
}

export interface IntegrationUrlOption {
  readonly key: string;
  readonly label: string;
  readonly inputType: string;
}

export interface IntegrationConfigOption {
  readonly key: string;
  readonly label: string;
  /** The validator's name, as register shows it. */
  readonly validatorName: string;
  /** An error message for an invalid value, or null when the value is fine. */
  readonly validate: (key: string, value: string) => string | null;
}

export interface IncomingWebhookIntegration {
  /** As in the URL /api/v1/external/{name}. */
  readonly name: string;
  /** Menus show this. */
  readonly displayName: string;
  /** Zulip's webhook_client_name ("GitHub"): errors name it, the client is Zulip{it}Webhook. */
  readonly webhookName: string;
  /** Event types the only_events / exclude_events filters know, or null. */
  readonly allEventTypes: readonly string[] | null;
  readonly urlOptions: readonly IntegrationUrlOption[];
  readonly configOptions: readonly IntegrationConfigOption[];
  /**
   * Where the payload is: the JSON body (default), or, Slack-style, either the JSON body
   * or a form field `payload` holding JSON.
   */
  readonly payloadSource?: "json" | "json-or-form-payload";
  /** The messages to post for a request; none when the event is ignored. */
  messages(input: WebhookInput): WebhookMessage[];
}
