import { checkSetUserTopic, checkUpdateMutedTopic } from "../actions/user-topics.js";
import { incompatibleParameters } from "../actions/channel-groups.js";
import { badRequest } from "../errors.js";
import { defineEndpoint } from "../http/endpoint.js";
import { LIMITS } from "../lib/realm-limits.js";
import { VISIBILITY_POLICIES } from "../lib/user-topics.js";
import { validate, p } from "../params.js";

const topic = p.str({ maxLength: LIMITS.max_topic_length });

/** Mute, unmute (in a muted channel), follow a topic, or drop its policy (0). */
export const updateUserTopic = defineEndpoint({
  method: "POST",
  path: "/user_topics",
  auth: "user",
  params: {
    stream_id: p.int(),
    topic,
    visibility_policy: p.int(),
  },
  async handler({ app, user, params }) {
    const policy = validate.oneOf(VISIBILITY_POLICIES)(params.visibility_policy, "visibility_policy");
    await checkSetUserTopic(app, user, { streamId: params.stream_id, topic: params.topic, policy });
    return {};
  },
});

/** The legacy way to mute and unmute topics (Zulip 2.0 to 6.0), still served. */
export const updateMutedTopic = defineEndpoint({
  method: "PATCH",
  path: "/users/me/subscriptions/muted_topics",
  auth: "user",
  params: {
    stream_id: p.int().optional(),
    stream: p.str().optional(),
    topic,
    op: p.oneOf(["add", "remove"] as const),
  },
  async handler({ app, user, params }) {
    // Zulip's check_for_exactly_one_stream_arg.
    if (params.stream_id === undefined && params.stream === undefined)
      throw badRequest("Missing 'stream_id' argument");
    if (params.stream_id !== undefined && params.stream !== undefined)
      throw incompatibleParameters(["stream_id", "stream"]);
    await checkUpdateMutedTopic(app, user, {
      streamId: params.stream_id,
      streamName: params.stream,
      topic: params.topic,
      op: params.op,
    });
    return {};
  },
});
