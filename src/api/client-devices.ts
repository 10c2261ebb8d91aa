import { checkRegisterClientDevice, checkRemoveClientDevice } from "../actions/client-devices.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p } from "../params.js";

// The mobile app registers a device when the server's feature level is 468 or more, and
// removes it when logging out (470). Devices exist without push notifications.

export const registerClientDevice = defineEndpoint({
  method: "POST",
  path: "/register_client_device",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return { device_id: await checkRegisterClientDevice(app, user) };
  },
});

export const removeClientDevice = defineEndpoint({
  method: "POST",
  path: "/remove_client_device",
  auth: "user",
  params: { device_id: p.int() },
  async handler({ app, user, params }) {
    await checkRemoveClientDevice(app, user, params.device_id);
    return {};
  },
});
