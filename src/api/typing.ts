import { defineEndpoint } from "../http/endpoint.js";
import { check, p } from "../params.js";
import { badRequest, JsonableError } from "../errors.js";
import { bool } from "../db/rows.js";
import { accessChannelById } from "../permissions/channel-access.js";

const missing = (name: string) =>
  new JsonableError(`Missing '${name}' argument`, "REQUEST_VARIABLE_MISSING", 400, { var_name: name });

/** Zulip's MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS: larger channels get no typing events. */
const MAX_CHANNEL_SIZE_FOR_TYPING = 100;

/** POST /typing: typing start/stop notifications, for a direct conversation or a channel topic. */
export const setTyping = defineEndpoint({
  method: "POST",
  path: "/typing",
  auth: "user",
  params: {
    type: p.str().default("direct"),
    op: p.str(),
    to: p.listOf(check.int()).optional(),
    stream_id: p.int().optional(),
    topic: p.str().optional(),
  },
  async handler({ app, realm, user, params }) {
    if (params.op !== "start" && params.op !== "stop") throw badRequest("Invalid op");
    const sender = { user_id: user.id, email: user.email };
    if (params.type === "stream" || params.type === "channel") {
      if (params.stream_id === undefined) throw missing("stream_id");
      if (params.topic === undefined) throw badRequest("Missing topic");
      const world = { realm, channels: await app.channels.get(app.knex, realm.id) };
      const channel = accessChannelById(world, user, params.stream_id);
      const subscribers = world.channels.activeSubscriberIds(realm, channel.id);
      if (subscribers.length <= MAX_CHANNEL_SIZE_FOR_TYPING) {
        app.events.send(
          realm.id,
          {
            type: "typing",
            message_type: "stream",
            op: params.op,
            sender,
            stream_id: channel.id,
            topic: params.topic,
          },
          subscribers.filter((id) => id !== user.id),
        );
      }
      return {};
    }
    if (params.type !== "direct" && params.type !== "private") throw badRequest("Invalid type");
    if (params.to === undefined) throw missing("to");
    if (params.to.length === 0) throw badRequest("Empty 'to' list");
    const recipients = [];
    for (const id of params.to) {
      const target = realm.user(id);
      if (!target || !bool(target.is_active)) throw badRequest(`Invalid user ID ${id}`);
      recipients.push({ user_id: target.id, email: target.email });
    }
    if (!recipients.some((r) => r.user_id === user.id)) recipients.push(sender);
    app.events.send(
      realm.id,
      { type: "typing", message_type: "direct", op: params.op, sender, recipients },
      recipients.map((r) => r.user_id),
    );
    return {};
  },
});
