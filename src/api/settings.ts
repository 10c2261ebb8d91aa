import { checkUpdateUserSettings, USER_SETTING_PARAMS } from "../actions/user-settings.js";
import { defineEndpoint } from "../http/endpoint.js";

/** A user changes their own settings; the registry in actions/user-settings.ts lists them. */
export const updateSettings = defineEndpoint({
  method: "PATCH",
  path: "/settings",
  auth: "user",
  params: USER_SETTING_PARAMS,
  async handler({ app, user, params }) {
    await checkUpdateUserSettings(app, user, params);
    return {};
  },
});
