import {
  checkAddLinkifier,
  checkRemoveLinkifier,
  checkReorderLinkifiers,
  checkUpdateLinkifier,
} from "../actions/linkifiers.js";
import { defineEndpoint } from "../http/endpoint.js";
import { linkifiersOfRealm } from "../lib/linkifiers.js";
import { validate, p, pathInt } from "../params.js";

/** GET /realm/linkifiers: every user may read them (clients apply them to topics). */
export const getLinkifiers = defineEndpoint({
  method: "GET",
  path: "/realm/linkifiers",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return { linkifiers: await linkifiersOfRealm(app.knex, user.realm_id) };
  },
});

/** POST /realm/filters: a new linkifier, last in order. */
export const addLinkifier = defineEndpoint({
  method: "POST",
  path: "/realm/filters",
  auth: "admin",
  params: { pattern: p.str(), url_template: p.str() },
  async handler({ app, user, params }) {
    return { id: await checkAddLinkifier(app, user, params.pattern, params.url_template) };
  },
});

export const updateLinkifier = defineEndpoint({
  method: "PATCH",
  path: "/realm/filters/:filter_id",
  auth: "admin",
  params: { filter_id: pathInt(), pattern: p.str(), url_template: p.str() },
  async handler({ app, user, params }) {
    await checkUpdateLinkifier(app, user, params.filter_id, params.pattern, params.url_template);
    return {};
  },
});

export const removeLinkifier = defineEndpoint({
  method: "DELETE",
  path: "/realm/filters/:filter_id",
  auth: "admin",
  params: { filter_id: pathInt() },
  async handler({ app, user, params }) {
    await checkRemoveLinkifier(app, user, params.filter_id);
    return {};
  },
});

/** PATCH /realm/linkifiers: the new order, every linkifier's ID once. */
export const reorderLinkifiers = defineEndpoint({
  method: "PATCH",
  path: "/realm/linkifiers",
  auth: "admin",
  params: { ordered_linkifier_ids: p.listOf(validate.int()) },
  async handler({ app, user, params }) {
    await checkReorderLinkifiers(app, user, params.ordered_linkifier_ids);
    return {};
  },
});
