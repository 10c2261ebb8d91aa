import { checkAddRealmEmoji, checkRemoveRealmEmoji, emojiUploadLimits } from "../actions/realm-emoji.js";
import { defineEndpoint } from "../http/endpoint.js";
import { allCustomEmoji } from "../lib/realm-emoji.js";
import { p } from "../params.js";

/** GET /realm/emoji: every custom emoji, deactivated ones too (the list is public in the realm). */
export const getCustomEmoji = defineEndpoint({
  method: "GET",
  path: "/realm/emoji",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return { emoji: await allCustomEmoji(app.knex, user.realm_id) };
  },
});

/** POST /realm/emoji/{emoji_name}: one image, multipart. */
export const uploadCustomEmoji = defineEndpoint({
  method: "POST",
  path: "/realm/emoji/:emoji_name",
  auth: "user",
  params: { emoji_name: p.path(p.str()) },
  upload: (app) => emojiUploadLimits(app),
  async handler({ app, user, params, files }) {
    await checkAddRealmEmoji(app, user, params.emoji_name, files);
    return {};
  },
});

/** DELETE /realm/emoji/{emoji_name}: deactivates it. */
export const deactivateCustomEmoji = defineEndpoint({
  method: "DELETE",
  path: "/realm/emoji/:emoji_name",
  auth: "user",
  params: { emoji_name: p.path(p.str()) },
  async handler({ app, user, params }) {
    await checkRemoveRealmEmoji(app, user, params.emoji_name);
    return {};
  },
});
