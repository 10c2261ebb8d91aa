import { checkSendMessage } from "../actions/message-send.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p } from "../params.js";

/** A raw text parameter: no checks here (the action owns the messages, e.g. for NUL bytes). */
const rawText = () => p.custom((raw) => raw);

/**
 * POST /messages. `to` is a channel name or ID for channel messages and a list of user
 * IDs or emails (JSON, or comma-separated) for direct messages; `topic` has the legacy
 * alias `subject`. `widget_content` (JSON) attaches a widget, as Zulip's bots do. The Zulip
 * mirroring parameters (forged, sender, time) are not supported and come back in
 * ignored_parameters_unsupported.
 */
export const sendMessage = defineEndpoint({
  method: "POST",
  path: "/messages",
  auth: "user",
  incomingWebhookBots: true,
  params: {
    type: p.oneOf(["stream", "channel", "private", "direct"]),
    to: rawText().optional(),
    topic: rawText().alias("subject").optional(),
    content: rawText(),
    local_id: rawText().optional(),
    queue_id: rawText().optional(),
    read_by_sender: p.bool().optional(),
    widget_content: rawText().optional(),
  },
  async handler({ app, user, params, request }) {
    const id = await checkSendMessage(app, user, {
      type: params.type === "stream" || params.type === "channel" ? "stream" : "private",
      to: params.to,
      topic: params.topic,
      content: params.content,
      client: request.clientName,
      readBySender: params.read_by_sender,
      localId: params.local_id,
      queueId: params.queue_id,
      widgetContent: params.widget_content,
    });
    return { id };
  },
});
