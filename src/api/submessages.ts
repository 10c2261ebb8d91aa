import { checkAddSubmessage } from "../actions/submessages.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p } from "../params.js";

/** POST /submessage: add to a message's widget (polls and to-do lists). */
export const addSubmessage = defineEndpoint({
  method: "POST",
  path: "/submessage",
  auth: "user",
  params: {
    message_id: p.int(),
    msg_type: p.str(),
    content: p.str(),
  },
  async handler({ app, realm, user, params }) {
    await checkAddSubmessage(app, realm, user, {
      messageId: params.message_id,
      msgType: params.msg_type,
      content: params.content,
    });
    return {};
  },
});
