import { checkEditMessage, messageHistory } from "../actions/message-edit.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p, pathInt } from "../params.js";

export const editMessage = defineEndpoint({
  method: "PATCH",
  path: "/messages/:message_id",
  auth: "user",
  params: {
    message_id: pathInt(),
    content: p.str().optional(),
    topic: p.str().optional(),
    subject: p.str().optional(),
    propagate_mode: p.str().default("change_one"),
    stream_id: p.int().optional(),
    send_notification_to_old_thread: p.bool().default(false),
    send_notification_to_new_thread: p.bool().default(true),
  },
  async handler({ app, realm, user, params }) {
    await checkEditMessage(app, realm, user, params.message_id, {
      content: params.content,
      topic: params.topic ?? params.subject,
      propagateMode: params.propagate_mode,
      streamId: params.stream_id,
    });
    return {};
  },
});

export const getMessageHistory = defineEndpoint({
  method: "GET",
  path: "/messages/:message_id/history",
  auth: "user",
  params: { message_id: pathInt() },
  async handler({ app, realm, user, params }) {
    return { message_history: await messageHistory(app, realm, user, params.message_id) };
  },
});
