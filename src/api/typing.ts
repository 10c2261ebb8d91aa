import { defineEndpoint } from "../http/endpoint.js";
import { validate, p, pathInt } from "../params.js";
import { badRequest, missingArgument } from "../errors.js";
import { sendChannelTyping, sendDirectTyping, sendMessageEditTyping } from "../actions/typing.js";

/** POST /typing: typing start/stop notifications, for a direct conversation or a channel topic. */
export const setTyping = defineEndpoint({
  method: "POST",
  path: "/typing",
  auth: "user",
  params: {
    type: p.str().default("direct"),
    op: p.str(),
    to: p.listOf(validate.int()).optional(),
    stream_id: p.int().optional(),
    topic: p.str().optional(),
  },
  async handler({ app, realm, user, params }) {
    if (params.op !== "start" && params.op !== "stop") throw badRequest("Invalid op");
    if (params.type === "stream" || params.type === "channel") {
      if (params.stream_id === undefined) throw missingArgument("stream_id");
      if (params.topic === undefined) throw badRequest("Missing topic");
      await sendChannelTyping(app, realm, user, params.op, params.stream_id, params.topic);
      return {};
    }
    if (params.type !== "direct" && params.type !== "private") throw badRequest("Invalid type");
    if (params.to === undefined) throw missingArgument("to");
    sendDirectTyping(app, realm, user, params.op, params.to);
    return {};
  },
});

/** POST /messages/{message_id}/typing: typing notifications while editing a message. */
export const setMessageEditTyping = defineEndpoint({
  method: "POST",
  path: "/messages/:message_id/typing",
  auth: "user",
  params: { message_id: pathInt(), op: p.oneOf(["start", "stop"]) },
  async handler({ app, realm, user, params }) {
    await sendMessageEditTyping(app, realm, user, params.op, params.message_id);
    return {};
  },
});
