import { checkUpdateRealmUserDefaults, REALM_USER_DEFAULT_PARAMS } from "../actions/realm-user-defaults.js";
import { checkUpdateUserSettings, USER_SETTING_PARAMS } from "../actions/user-settings.js";
import { defineEndpoint } from "../http/endpoint.js";

/** A user changes their own settings; the registry in actions/user-settings.ts lists them. */
const changeOwnSettings = (path: string) =>
  defineEndpoint({
    method: "PATCH",
    path,
    auth: "user",
    params: USER_SETTING_PARAMS,
    async handler({ app, user, sessionId, params }) {
      await checkUpdateUserSettings(app, user, params, sessionId);
      return {};
    },
  });

export const updateSettings = changeOwnSettings("/settings");

/**
 * The endpoints PATCH /settings replaced at feature level 80: deprecated aliases of it,
 * still served (Zulip's OpenAPI says so, and its URL table keeps them).
 */
export const updateDisplaySettings = changeOwnSettings("/settings/display");
export const updateNotificationSettings = changeOwnSettings("/settings/notifications");

/** Administrators change the settings new users get. */
export const updateRealmUserDefaults = defineEndpoint({
  method: "PATCH",
  path: "/realm/user_settings_defaults",
  auth: "admin",
  params: REALM_USER_DEFAULT_PARAMS,
  async handler({ app, realm, params }) {
    await checkUpdateRealmUserDefaults(app, realm.id, params);
    return {};
  },
});
