import {
  checkDeleteScheduledMessage,
  checkEditScheduledMessage,
  checkScheduleMessage,
  type ScheduledRecipientType,
} from "../actions/scheduled-messages.js";
import { defineEndpoint } from "../http/endpoint.js";
import { validate, p, pathInt } from "../params.js";
import { scheduledMessagesOf } from "../queries/scheduled-messages.js";

/** Zulip's Message.API_RECIPIENT_TYPES; "direct" and "channel" are the modern names. */
const recipientType = p.oneOf(["direct", "private", "stream", "channel"]);
const storedType = (type: "direct" | "private" | "stream" | "channel"): ScheduledRecipientType =>
  type === "stream" || type === "channel" ? "stream" : "private";

/** A channel ID, or direct message user IDs (JSON). */
const to = p.json(validate.anyOf<number | number[]>(validate.int(), validate.list(validate.int())));
/** Raw text: the action owns the messages (empty topic names, NUL bytes). */
const rawText = () => p.custom((raw) => raw);

export const getScheduledMessages = defineEndpoint({
  method: "GET",
  path: "/scheduled_messages",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return { scheduled_messages: await scheduledMessagesOf(app.knex, user.id) };
  },
});

export const createScheduledMessage = defineEndpoint({
  method: "POST",
  path: "/scheduled_messages",
  auth: "user",
  params: {
    type: recipientType,
    to,
    topic: rawText().alias("subject").optional(),
    content: rawText(),
    scheduled_delivery_timestamp: p.int(),
    read_by_sender: p.bool().optional(),
  },
  async handler({ app, user, params, request }) {
    const id = await checkScheduleMessage(app, user, {
      type: storedType(params.type),
      to: params.to,
      topic: params.topic,
      content: params.content,
      deliverAt: params.scheduled_delivery_timestamp,
      readBySender: params.read_by_sender,
      client: request.clientName,
    });
    return { scheduled_message_id: id };
  },
});

export const updateScheduledMessage = defineEndpoint({
  method: "PATCH",
  path: "/scheduled_messages/:scheduled_message_id",
  auth: "user",
  params: {
    scheduled_message_id: pathInt(),
    type: recipientType.optional(),
    to: to.optional(),
    topic: rawText().alias("subject").optional(),
    content: rawText().optional(),
    scheduled_delivery_timestamp: p.int().optional(),
  },
  async handler({ app, user, params, request }) {
    await checkEditScheduledMessage(app, user, params.scheduled_message_id, {
      type: params.type === undefined ? undefined : storedType(params.type),
      to: params.to,
      topic: params.topic,
      content: params.content,
      deliverAt: params.scheduled_delivery_timestamp,
      client: request.clientName,
    });
    return {};
  },
});

export const deleteScheduledMessage = defineEndpoint({
  method: "DELETE",
  path: "/scheduled_messages/:scheduled_message_id",
  auth: "user",
  params: { scheduled_message_id: pathInt() },
  async handler({ app, user, params }) {
    await checkDeleteScheduledMessage(app, user, params.scheduled_message_id);
    return {};
  },
});
