import { checkUpdateSubscriptionProperties } from "../actions/subscription-properties.js";
import {
  checkSubscribe,
  checkUnsubscribe,
  checkUpdateSubscriptions,
} from "../actions/subscription-requests.js";
import { bool } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { defineEndpoint } from "../http/endpoint.js";
import { validate, field, p, pathInt } from "../params.js";
import { accessUserById } from "../lib/access-users.js";
import { accessChannelById } from "../permissions/channel-access.js";
import { LIMITS } from "../lib/realm-limits.js";
import { creationFrom, creationParams, includeSubscribersParam, principalsParam } from "./channel-params.js";
import { loadWorld } from "../cache/world.js";
import { subscriptionsJson } from "./subscriptions-json.js";

const subscriptionItem = validate.dict({
  name: field.required(validate.str()),
  color: field.optional(validate.str()),
  description: field.optional(validate.str({ maxLength: LIMITS.max_stream_description_length })),
});

/** Subscribe the caller or others; creates missing channels. */
export const subscribe = defineEndpoint({
  method: "POST",
  path: "/users/me/subscriptions",
  auth: "user",
  params: {
    subscriptions: p.listOf(subscriptionItem),
    principals: principalsParam(),
    authorization_errors_fatal: p.bool().default(true),
    ...creationParams(),
  },
  async handler({ app, user, params }) {
    const result = await checkSubscribe(app, user, {
      subscriptions: params.subscriptions,
      principals: params.principals,
      authorization_errors_fatal: params.authorization_errors_fatal,
      announce: params.announce,
      send_new_subscription_messages: params.send_new_subscription_messages,
      creation: creationFrom(params),
    });
    return { ...result };
  },
});

export const unsubscribe = defineEndpoint({
  method: "DELETE",
  path: "/users/me/subscriptions",
  auth: "user",
  params: {
    subscriptions: p.listOf(validate.str()),
    principals: principalsParam(),
  },
  async handler({ app, user, params }) {
    return checkUnsubscribe(app, user, params.subscriptions, params.principals);
  },
});

/**
 * Subscribe and unsubscribe at once. Zulip's view composes the two above, which read
 * their other parameters from this same request: they are accepted here too.
 */
export const updateSubscriptions = defineEndpoint({
  method: "PATCH",
  path: "/users/me/subscriptions",
  auth: "user",
  params: {
    add: p.listOf(subscriptionItem).default([]),
    delete: p.listOf(validate.str()).default([]),
    principals: principalsParam(),
    authorization_errors_fatal: p.bool().default(true),
    ...creationParams(),
  },
  async handler({ app, user, params }) {
    const result = await checkUpdateSubscriptions(app, user, {
      subscriptions: params.add,
      delete: params.delete,
      principals: params.principals,
      authorization_errors_fatal: params.authorization_errors_fatal,
      announce: params.announce,
      send_new_subscription_messages: params.send_new_subscription_messages,
      creation: creationFrom(params),
    });
    return { ...result };
  },
});

export const getSubscriptions = defineEndpoint({
  method: "GET",
  path: "/users/me/subscriptions",
  auth: "user",
  params: { include_subscribers: includeSubscribersParam().default(false) },
  async handler({ app, user, realm, params }) {
    const world = await loadWorld(app, app.knex, realm);
    return { subscriptions: await subscriptionsJson(app, world, user, params.include_subscribers) };
  },
});

export const updateSubscriptionProperties = defineEndpoint({
  method: "POST",
  path: "/users/me/subscriptions/properties",
  auth: "user",
  params: {
    subscription_data: p.listOf(
      validate.dict({
        stream_id: field.required(validate.int()),
        property: field.required(validate.str()),
        value: field.required(validate.any()),
      }),
    ),
  },
  async handler({ app, user, params }) {
    await checkUpdateSubscriptionProperties(app, user, params.subscription_data);
    return {};
  },
});

/** Is a user subscribed to a channel? Needs only to see the channel. */
export const getSubscriptionStatus = defineEndpoint({
  method: "GET",
  path: "/users/:user_id/subscriptions/:stream_id",
  auth: "user",
  params: { user_id: pathInt(), stream_id: pathInt() },
  async handler({ app, user, realm, params }) {
    const target = accessUserById(realm, params.user_id);
    if (!bool(target.is_active)) throw badRequest("User is deactivated");
    const world = await loadWorld(app, app.knex, realm);
    const channel = accessChannelById(world, user, params.stream_id, { requireContentAccess: false });
    return { is_subscribed: world.channels.isSubscribed(target.id, channel.id) };
  },
});
