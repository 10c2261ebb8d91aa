import {
  PUSH_KIND,
  checkAddPushDevice,
  validateAppId,
  refusePushDeviceRegistration,
  checkRemovePushDevice,
  refuseE2eeTestNotification,
  refuseTestNotification,
} from "../actions/push-devices.js";
import { badRequest } from "../errors.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p } from "../params.js";

// Deprecated since feature level 406 in favour of end-to-end-encrypted push device
// registration; still served so older mobile apps can register.

export const addApnsDeviceToken = defineEndpoint({
  method: "POST",
  path: "/users/me/apns_device_token",
  auth: "user",
  params: { token: p.str(), appid: p.custom((raw) => validateAppId(raw)) },
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

// End-to-end encrypted push registration (feature level 406, devices since 468) and
// test notifications: chatd has no push service, so these give Zulip's refusals.

const uint32 = () =>
  p.custom((raw, name) => {
    const value = p.int().decode(raw, name);
    if (value < 0 || value > 0xffffffff) {
      throw badRequest(`Invalid ${name}: Value error, Not a valid unsigned 32-bit integer`);
    }
    return value;
  });

export const registerPushDevice = defineEndpoint({
  method: "POST",
  path: "/mobile_push/register",
  auth: "user",
  params: {
    device_id: p.int(),
    token_kind: p
      .custom((raw, name) => {
        if (raw !== "fcm" && raw !== "apns") {
          throw badRequest(`Invalid ${name}: Value error, Not in the list of possible values`);
        }
        return raw;
      })
      .optional(),
    push_key: p.str().optional(),
    push_key_id: uint32().optional(),
    bouncer_public_key: p.str().optional(),
    encrypted_push_registration: p.str().optional(),
    token_id: p.str().optional(),
  },
  handler({ user }) {
    return refusePushDeviceRegistration(user);
  },
});

export const sendTestNotification = defineEndpoint({
  method: "POST",
  path: "/mobile_push/test_notification",
  auth: "user",
  params: { token: p.str().optional() },
  handler({ app, user, params }) {
    return refuseTestNotification(app, user, params.token);
  },
});

export const sendE2eeTestNotification = defineEndpoint({
  method: "POST",
  path: "/mobile_push/e2ee/test_notification",
  auth: "user",
  params: { device_id: p.int().optional() },
  handler({ user }) {
    return refuseE2eeTestNotification(user);
  },
});
