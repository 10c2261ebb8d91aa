import { PUSH_KIND, checkAddPushDevice, checkAppId, checkRemovePushDevice } from "../actions/push-devices.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p } from "../params.js";

// Deprecated since feature level 406 in favour of end-to-end-encrypted push device
// registration; still served so older mobile apps can register.

export const addApnsDeviceToken = defineEndpoint({
  method: "POST",
  path: "/users/me/apns_device_token",
  auth: "user",
  params: { token: p.str(), appid: p.custom((raw) => checkAppId(raw)) },
  async handler({ app, user, params }) {
    await checkAddPushDevice(app, user, PUSH_KIND.APNS, params.token, params.appid);
    return {};
  },
});

export const removeApnsDeviceToken = defineEndpoint({
  method: "DELETE",
  path: "/users/me/apns_device_token",
  auth: "user",
  params: { token: p.str() },
  async handler({ app, user, params }) {
    await checkRemovePushDevice(app, user, PUSH_KIND.APNS, params.token);
    return {};
  },
});

export const addAndroidRegistrationId = defineEndpoint({
  method: "POST",
  path: "/users/me/android_gcm_reg_id",
  auth: "user",
  params: { token: p.str() },
  async handler({ app, user, params }) {
    await checkAddPushDevice(app, user, PUSH_KIND.FCM, params.token, null);
    return {};
  },
});

export const removeAndroidRegistrationId = defineEndpoint({
  method: "DELETE",
  path: "/users/me/android_gcm_reg_id",
  auth: "user",
  params: { token: p.str() },
  async handler({ app, user, params }) {
    await checkRemovePushDevice(app, user, PUSH_KIND.FCM, params.token);
    return {};
  },
});
