import { checkCreateChannel } from "../actions/channel-create.js";
import { checkArchiveChannel, checkUpdateChannel } from "../actions/channel-update.js";
import { checkAddDefaultChannel, checkRemoveDefaultChannel } from "../actions/default-channels.js";
import { badRequest } from "../errors.js";
import { defineEndpoint } from "../http/endpoint.js";
import { validate, p, pathInt } from "../params.js";
import {
  accessChannelById,
  accessChannelByName,
  subscriberAccessError,
} from "../permissions/channel-access.js";
import { channelDescriptionParam, retentionDaysParam, topicsPolicyParam } from "../lib/channel-validation.js";
import { compareByName, presentChannel } from "../presenters/channels.js";
import { channelsForUser } from "../queries/channels.js";
import { creationFrom, creationParams, groupUpdateParams, pickGroupSettings } from "./channel-params.js";
import { loadWorld } from "../cache/world.js";

export const getStreams = defineEndpoint({
  method: "GET",
  path: "/streams",
  auth: "user",
  params: {
    include_public: p.bool().default(true),
    include_web_public: p.bool().default(false),
    include_subscribed: p.bool().default(true),
    exclude_archived: p.bool().default(true),
    include_all: p.bool().default(false),
    include_all_active: p.bool().default(false),
    include_default: p.bool().default(false),
    include_owner_subscribed: p.bool().default(false),
    include_can_access_content: p.bool().default(false),
  },
  async handler({ app, user, realm, params }) {
    const world = await loadWorld(app, app.knex, realm);
    const channels = channelsForUser(world, user, {
      ...params,
      include_all: params.include_all || params.include_all_active,
    });
    const streams = channels.map((c) => {
      const dict = presentChannel(realm, world.channels, c);
      if (params.include_default) dict.is_default = world.channels.defaultChannelIds.has(c.id);
      return dict;
    });
    return { streams: streams.sort(compareByName) };
  },
});

export const getStream = defineEndpoint({
  method: "GET",
  path: "/streams/:stream_id",
  auth: "user",
  params: { stream_id: pathInt() },
  async handler({ app, user, realm, params }) {
    const world = await loadWorld(app, app.knex, realm);
    const channel = accessChannelById(world, user, params.stream_id, { requireContentAccess: false });
    return { stream: presentChannel(realm, world.channels, channel) };
  },
});

export const getStreamId = defineEndpoint({
  method: "GET",
  path: "/get_stream_id",
  auth: "user",
  params: { stream: p.str() },
  async handler({ app, user, realm, params }) {
    const world = await loadWorld(app, app.knex, realm);
    return { stream_id: accessChannelByName(world, user, params.stream).id };
  },
});

export const getSubscribers = defineEndpoint({
  method: "GET",
  path: "/streams/:stream_id/members",
  auth: "user",
  params: { stream_id: pathInt() },
  async handler({ app, user, realm, params }) {
    const world = await loadWorld(app, app.knex, realm);
    const channel = accessChannelById(world, user, params.stream_id, { requireContentAccess: false });
    const error = subscriberAccessError(world, user, channel);
    if (error) throw badRequest(error);
    return { subscribers: [...world.channels.activeSubscriberIds(realm, channel.id)] };
  },
});

export const createChannel = defineEndpoint({
  method: "POST",
  path: "/channels/create",
  auth: "user",
  params: {
    name: p.str(),
    description: channelDescriptionParam().default(""),
    subscribers: p.listOf(validate.int()),
    ...creationParams(),
  },
  async handler({ app, user, params }) {
    const id = await checkCreateChannel(app, user, {
      name: params.name,
      description: params.description,
      subscribers: params.subscribers,
      announce: params.announce,
      creation: creationFrom(params),
    });
    return { id };
  },
});

export const updateStream = defineEndpoint({
  method: "PATCH",
  path: "/streams/:stream_id",
  auth: "user",
  params: {
    stream_id: pathInt(),
    description: channelDescriptionParam().optional(),
    new_name: p.str().optional(),
    is_private: p.bool().optional(),
    is_web_public: p.bool().optional(),
    history_public_to_subscribers: p.bool().optional(),
    is_default_stream: p.bool().optional(),
    message_retention_days: retentionDaysParam().optional(),
    is_archived: p.bool().optional(),
    folder_id: p.json(validate.nullable(validate.int())).optional(),
    topics_policy: topicsPolicyParam().optional(),
    ...groupUpdateParams(),
  },
  async handler({ app, user, params }) {
    await checkUpdateChannel(app, user, params.stream_id, {
      description: params.description,
      new_name: params.new_name,
      is_private: params.is_private,
      is_web_public: params.is_web_public,
      history_public_to_subscribers: params.history_public_to_subscribers,
      is_default_stream: params.is_default_stream,
      message_retention_days: params.message_retention_days,
      is_archived: params.is_archived,
      folder_id: params.folder_id,
      topics_policy: params.topics_policy,
      groups: pickGroupSettings(params),
    });
    return {};
  },
});

/** Archives the channel (Zulip's deactivate). */
export const archiveStream = defineEndpoint({
  method: "DELETE",
  path: "/streams/:stream_id",
  auth: "user",
  params: { stream_id: pathInt() },
  async handler({ app, user, params }) {
    await checkArchiveChannel(app, user, params.stream_id);
    return {};
  },
});

export const addDefaultStream = defineEndpoint({
  method: "POST",
  path: "/default_streams",
  auth: "admin",
  params: { stream_id: p.int() },
  async handler({ app, user, params }) {
    await checkAddDefaultChannel(app, user, params.stream_id);
    return {};
  },
});

export const removeDefaultStream = defineEndpoint({
  method: "DELETE",
  path: "/default_streams",
  auth: "admin",
  params: { stream_id: p.int() },
  async handler({ app, user, params }) {
    await checkRemoveDefaultChannel(app, user, params.stream_id);
    return {};
  },
});
