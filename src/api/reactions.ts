import { checkAddReaction, checkRemoveReaction } from "../actions/reactions.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p, pathInt } from "../params.js";

export const addReaction = defineEndpoint({
  method: "POST",
  path: "/messages/:message_id/reactions",
  auth: "user",
  params: {
    message_id: pathInt(),
    emoji_name: p.str(),
    emoji_code: p.str().optional(),
    reaction_type: p.str().optional(),
  },
  async handler({ app, realm, user, params }) {
    const { message_id, ...request } = params;
    await checkAddReaction(app, realm, user, message_id, request);
    return {};
  },
});

export const removeReaction = defineEndpoint({
  method: "DELETE",
  path: "/messages/:message_id/reactions",
  auth: "user",
  params: {
    message_id: pathInt(),
    emoji_name: p.str().optional(),
    emoji_code: p.str().optional(),
    reaction_type: p.str().optional(),
  },
  async handler({ app, realm, user, params }) {
    const { message_id, ...request } = params;
    await checkRemoveReaction(app, realm, user, message_id, request);
    return {};
  },
});
