import { avatarLimits, checkDeleteAvatar, checkSetAvatar } from "../actions/avatars.js";
import { defineEndpoint } from "../http/endpoint.js";

/** POST /users/me/avatar: one image, multipart (Zulip's set_avatar_backend). */
export const setAvatar = defineEndpoint({
  method: "POST",
  path: "/users/me/avatar",
  auth: "user",
  params: {},
  upload: (app) => avatarLimits(app),
  async handler({ app, user, files }) {
    return { avatar_url: await checkSetAvatar(app, user, files) };
  },
});

/** DELETE /users/me/avatar: back to the gravatar. */
export const deleteAvatar = defineEndpoint({
  method: "DELETE",
  path: "/users/me/avatar",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return { avatar_url: await checkDeleteAvatar(app, user) };
  },
});
