import { checkMuteUser, checkUnmuteUser } from "../actions/muted-users.js";
import { defineEndpoint } from "../http/endpoint.js";
import { pathInt } from "../params.js";

export const muteUser = defineEndpoint({
  method: "POST",
  path: "/users/me/muted_users/:muted_user_id",
  auth: "user",
  params: { muted_user_id: pathInt() },
  async handler({ app, user, realm, params }) {
    await checkMuteUser(app, realm, user, params.muted_user_id);
    return {};
  },
});

export const unmuteUser = defineEndpoint({
  method: "DELETE",
  path: "/users/me/muted_users/:muted_user_id",
  auth: "user",
  params: { muted_user_id: pathInt() },
  async handler({ app, user, realm, params }) {
    await checkUnmuteUser(app, realm, user, params.muted_user_id);
    return {};
  },
});
