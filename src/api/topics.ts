import { defineEndpoint } from "../http/endpoint.js";
import { p, pathInt } from "../params.js";
import { accessChannelById } from "../permissions/channel-access.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { channelTopics } from "../queries/topics.js";
import { loadWorld } from "../cache/world.js";

/**
 * GET /users/me/{stream_id}/topics: the channel's topics, newest first, each named as
 * in its most recent message. Without access to the channel's history, only the
 * topics of messages the user received.
 */
export const getChannelTopics = defineEndpoint({
  method: "GET",
  path: "/users/me/:stream_id/topics",
  auth: "user",
  params: { stream_id: pathInt(), allow_empty_topic_name: p.bool().default(false) },
  async handler({ app, realm, user, params }) {
    const world = await loadWorld(app, app.knex, realm);
    const channel = accessChannelById(world, user, params.stream_id);
    const topics = await channelTopics(app.knex, world, user, channel);
    const display = (name: string) =>
      name === "" && !params.allow_empty_topic_name ? emptyTopicDisplayName(realm.realm) : name;
    return { topics: topics.map((topic) => ({ max_id: topic.maxId, name: display(topic.name) })) };
  },
});
