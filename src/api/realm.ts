import { checkUpdateRealm, REALM_SETTING_PARAMS } from "../actions/realm-settings.js";
import { checkSendTestWelcomeBotMessage } from "../actions/welcome-bot.js";
import { defineEndpoint } from "../http/endpoint.js";
import { MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH } from "../lib/realm-limits.js";
import { p } from "../params.js";

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

/** Administrators preview the Welcome Bot's custom message: it is sent to them. */
export const testWelcomeBotCustomMessage = defineEndpoint({
  method: "POST",
  path: "/realm/test_welcome_bot_custom_message",
  auth: "admin",
  params: { welcome_message_custom_text: p.str({ maxLength: MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH }) },
  async handler({ app, user, params }) {
    return {
      message_id: await checkSendTestWelcomeBotMessage(app, user, params.welcome_message_custom_text),
    };
  },
});
