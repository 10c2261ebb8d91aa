import { checkUpdateRealm, REALM_SETTING_PARAMS } from "../actions/realm-settings.js";
import { defineEndpoint } from "../http/endpoint.js";

/** Administrators change the organization's settings (some are the owners' alone). */
export const updateRealm = defineEndpoint({
  method: "PATCH",
  path: "/realm",
  auth: "admin",
  params: REALM_SETTING_PARAMS,
  async handler({ app, user, params }) {
    return checkUpdateRealm(app, user, params);
  },
});
