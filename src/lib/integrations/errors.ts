import { JsonableError } from "../../errors.js";

/**
 * Zulip's webhook errors (zerver/lib/exceptions.py, zerver/lib/webhooks/common.py), with
 * their codes, HTTP statuses and wording. `webhook` is the integration's display name
 * (Zulip's webhook_client_name, e.g. "GitHub").
 */

/** UnsupportedWebhookEventTypeError: an event the service sends that Zulip does not post. */
export const unsupportedEvent = (webhook: string, eventType: string) =>
  new JsonableError(
    `The '${eventType}' event isn't currently supported by the ${webhook} webhook; ignoring`,
    "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
    200,
    { webhook_name: webhook, event_type: eventType },
  );

/** AnomalousWebhookPayloadError: a payload this integration cannot read. */
export const anomalousPayload = (webhook: string) =>
  new JsonableError(
    `Unable to parse request: Did ${webhook} generate this event?`,
    "ANOMALOUS_WEBHOOK_PAYLOAD",
    400,
    { webhook_name: webhook },
  );

/** MissingHTTPEventHeaderError: the header that names the event type is absent. */
export const missingEventHeader = (header: string) =>
  new JsonableError(`Missing the HTTP event header '${header}'`, "MISSING_HTTP_EVENT_HEADER", 400, {
    header,
  });

/** InvalidJSONError: the body is not JSON. */
export const malformedJson = () => new JsonableError("Malformed JSON", "INVALID_JSON", 400);
