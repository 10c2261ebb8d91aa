import { defineEndpoint } from "../http/endpoint.js";
import { p, pathInt } from "../params.js";
import { accessChannelById } from "../permissions/channel-access.js";
import { canReadChannelHistory } from "../lib/narrow/index.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";

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
    const world = { realm, channels: await app.channels.get(app.knex, realm.id) };
    const channel = accessChannelById(world, user, params.stream_id);
    const latest = app
      .knex("messages as m")
      .where("m.stream_id", channel.id)
      .groupBy("m.topic_key")
      .select<Array<{ max_id: number }>>(app.knex.raw("max(m.id) as max_id"));
    if (!canReadChannelHistory(world, user, channel))
      latest.join("user_messages as um", "um.message_id", "m.id").where("um.user_id", user.id);
    const ids = (await latest).map((row) => Number(row.max_id));
    const names = new Map<number, string>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await app
        .knex("messages")
        .whereIn("id", ids.slice(i, i + 500))
        .select<Array<{ id: number; topic: string }>>("id", "topic");
      for (const row of rows) names.set(row.id, row.topic);
    }
    const display = (name: string) =>
      name === "" && !params.allow_empty_topic_name ? emptyTopicDisplayName(realm.realm) : name;
    return {
      topics: ids.sort((a, b) => b - a).map((id) => ({ max_id: id, name: display(names.get(id) ?? "") })),
    };
  },
});
