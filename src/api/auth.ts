import { checkFetchApiKey, checkRegenerateApiKey } from "../actions/auth.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p } from "../params.js";

export const fetchApiKey = defineEndpoint({
  method: "POST",
  path: "/fetch_api_key",
  auth: "anonymous",
  issuesApiKey: true,
  params: { username: p.str(), password: p.str() },
  async handler({ app, params, request }) {
    return { ...(await checkFetchApiKey(app, params.username, params.password, request.clientName)) };
  },
});

export const regenerateApiKey = defineEndpoint({
  method: "POST",
  path: "/users/me/api_key/regenerate",
  auth: "user",
  issuesApiKey: true,
  params: {},
  async handler({ app, user, request }) {
    return { api_key: await checkRegenerateApiKey(app, user, request.clientName) };
  },
});
