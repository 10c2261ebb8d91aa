import { defineEndpoint } from "../http/endpoint.js";
import { check, p } from "../http/params.js";
import { accessUserByIdOrEmail } from "../lib/access-users.js";
import { maxMessageIdForUser } from "../lib/user-messages.js";
import { presentUser } from "../presenters/users.js";

export const getOwnUser = defineEndpoint({
  method: "GET",
  path: "/users/me",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    const me = presentUser(user, user, { clientGravatar: false });
    return { ...me, max_message_id: await maxMessageIdForUser(app.knex, user.id) };
  },
});

export const getUsers = defineEndpoint({
  method: "GET",
  path: "/users",
  auth: "user",
  params: {
    client_gravatar: p.bool().default(true),
    include_custom_profile_fields: p.bool().default(false),
    user_ids: p.listOf(check.int()).optional(),
  },
  handler({ user, realm, params }) {
    const wanted = params.user_ids ? new Set(params.user_ids) : null;
    const members = [];
    for (const target of realm.users) {
      if (wanted && !wanted.has(target.id)) continue;
      members.push(presentUser(user, target, { clientGravatar: params.client_gravatar }));
    }
    return Promise.resolve({ members });
  },
});

/** GET /users/{user_id} and GET /users/{email} share one route, as in Zulip. */
export const getUser = defineEndpoint({
  method: "GET",
  path: "/users/:user_id_or_email",
  auth: "user",
  params: {
    user_id_or_email: p.path(p.str()),
    client_gravatar: p.bool().default(true),
    include_custom_profile_fields: p.bool().default(false),
  },
  handler({ app, user, realm, params }) {
    const target = accessUserByIdOrEmail(app.config, realm, user, params.user_id_or_email);
    return Promise.resolve({ user: presentUser(user, target, { clientGravatar: params.client_gravatar }) });
  },
});
