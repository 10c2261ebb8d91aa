import { checkDeleteMessage, deleteTopicRound } from "../actions/message-delete.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p, pathInt } from "../params.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";

export const deleteMessage = defineEndpoint({
  method: "DELETE",
  path: "/messages/:message_id",
  auth: "user",
  params: { message_id: pathInt() },
  async handler({ app, realm, user, params }) {
    await checkDeleteMessage(app, realm, user, params.message_id);
    return {};
  },
});

/** Deletes a topic in rounds; the client repeats the request until complete is true. */
export const deleteTopic = defineEndpoint({
  method: "POST",
  path: "/streams/:stream_id/delete_topic",
  auth: "admin",
  params: { stream_id: pathInt(), topic_name: p.str() },
  async handler({ app, realm, user, params }) {
    // The empty topic's display name stands for the empty topic.
    const topic = params.topic_name === emptyTopicDisplayName(realm.realm) ? "" : params.topic_name;
    const { complete } = await deleteTopicRound(app, realm, user, params.stream_id, topic);
    return { complete };
  },
});
