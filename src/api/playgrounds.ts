import { checkAddPlayground, checkRemovePlayground } from "../actions/playgrounds.js";
import { defineEndpoint } from "../http/endpoint.js";
import { badRequest } from "../errors.js";
import { MAX_PYGMENTS_LANGUAGE_LENGTH } from "../lib/playgrounds.js";
import { p, pathInt } from "../params.js";

/** Zulip's check_pygments_language (the view's check, before the model's). */
const VIEW_LANGUAGE = /^[ a-zA-Z0-9_+\-./#]*$/;

export const addPlayground = defineEndpoint({
  method: "POST",
  path: "/realm/playgrounds",
  auth: "admin",
  params: {
    name: p.str(),
    pygments_language: p.str({ maxLength: MAX_PYGMENTS_LANGUAGE_LENGTH }),
    url_template: p.str(),
  },
  async handler({ app, user, params }) {
    if (!VIEW_LANGUAGE.test(params.pygments_language)) {
      throw badRequest("Invalid characters in pygments language");
    }
    return { id: await checkAddPlayground(app, user, params) };
  },
});

export const removePlayground = defineEndpoint({
  method: "DELETE",
  path: "/realm/playgrounds/:playground_id",
  auth: "admin",
  params: { playground_id: pathInt() },
  async handler({ app, user, params }) {
    await checkRemovePlayground(app, user, params.playground_id);
    return {};
  },
});
