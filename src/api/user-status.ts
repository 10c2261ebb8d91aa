import { checkUpdateUserStatus, checkUpdateUserStatusAsAdmin } from "../actions/user-status.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p, pathInt } from "../params.js";
import { accessUserById } from "../lib/access-users.js";
import { userStatusOf } from "../queries/user-status.js";

export const MAX_STATUS_TEXT_LENGTH = 60;

export const updateOwnStatus = defineEndpoint({
  method: "POST",
  path: "/users/me/status",
  auth: "user",
  params: {
    // Deprecated alias of presence_enabled (away = !presence_enabled).
    away: p.bool().optional(),
    status_text: p.str({ trim: true, maxLength: MAX_STATUS_TEXT_LENGTH }).optional(),
    emoji_name: p.str().optional(),
    emoji_code: p.str().optional(),
    reaction_type: p.str().optional(),
  },
  async handler({ app, user, params }) {
    await checkUpdateUserStatus(app, user, {
      away: params.away,
      statusText: params.status_text,
      emojiName: params.emoji_name,
      emojiCode: params.emoji_code,
      reactionType: params.reaction_type,
    });
    return {};
  },
});

/** POST /users/{user_id}/status: administrators set another user's status (no `away`). */
export const updateUserStatus = defineEndpoint({
  method: "POST",
  path: "/users/:user_id/status",
  auth: "user",
  params: {
    user_id: pathInt(),
    status_text: p.str({ trim: true, maxLength: MAX_STATUS_TEXT_LENGTH }).optional(),
    emoji_name: p.str().optional(),
    emoji_code: p.str().optional(),
    reaction_type: p.str().optional(),
  },
  async handler({ app, user, params }) {
    await checkUpdateUserStatusAsAdmin(app, user, params.user_id, {
      statusText: params.status_text,
      emojiName: params.emoji_name,
      emojiCode: params.emoji_code,
      reactionType: params.reaction_type,
    });
    return {};
  },
});

export const getUserStatus = defineEndpoint({
  method: "GET",
  path: "/users/:user_id/status",
  auth: "user",
  params: { user_id: pathInt() },
  async handler({ app, realm, params }) {
    const target = accessUserById(realm, params.user_id);
    return { status: await userStatusOf(app.knex, realm.id, target.id) };
  },
});
