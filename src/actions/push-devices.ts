import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import { JsonableError, badRequest, botsNotAllowed } from "../errors.js";

/** push_devices.kind */
export const PUSH_KIND = { APNS: 1, FCM: 2 } as const;
export type PushKind = (typeof PUSH_KIND)[keyof typeof PUSH_KIND];

const MAX_TOKEN_LENGTH = 4096;

/** Python's bytes.fromhex: hex digit pairs, whitespace allowed between them. */
const isHexBytes = (token: string) => /^\s*(?:[0-9a-fA-F]{2}\s*)*$/.test(token);

/** Zulip's validate_token: a non-empty token of sane length; APNs tokens are hex. */
export function validatePushToken(token: string, kind: PushKind): string {
  if (token === "" || token.length > MAX_TOKEN_LENGTH) throw badRequest("Empty or invalid length token");
  if (kind === PUSH_KIND.APNS && !isHexBytes(token)) throw badRequest("Invalid APNS token");
  return token;
}

/** An iOS app ID such as org.zulip.Zulip. */
export function validateAppId(appId: string): string {
  if (!/^[.a-zA-Z0-9-]+$/.test(appId)) throw badRequest("Invalid app ID");
  return appId;
}

/**
 * Registers a device token for the user (deprecated Zulip API, still served). Adding a
 * token twice is not an error; a second registration refreshes it.
 */
export async function checkAddPushDevice(
  app: App,
  user: UserRow,
  kind: PushKind,
  token: string,
  appId: string | null,
): Promise<void> {
  if (bool(user.is_bot)) throw botsNotAllowed();
  validatePushToken(token, kind);
  await app.db.transaction(async (tx) => {
    await tx
      .knex("push_devices")
      .insert({ user_id: user.id, kind, token, ios_app_id: appId, last_updated: tx.now })
      .onConflict(["user_id", "kind", "token"])
      .merge(["ios_app_id", "last_updated"]);
  });
}

export async function checkRemovePushDevice(
  app: App,
  user: UserRow,
  kind: PushKind,
  token: string,
): Promise<void> {
  if (bool(user.is_bot)) throw botsNotAllowed();
  validatePushToken(token, kind);
  await app.db.transaction(async (tx) => {
    const removed = await tx.knex("push_devices").where({ user_id: user.id, kind, token }).delete();
    if (removed === 0) throw badRequest("Token does not exist");
  });
}

// ---- Mobile push: chatd has no push notification service ----
//
// Zulip sends push notifications through its push bouncer (or with the server's own
// APNs/FCM credentials); chatd has neither, so it answers as a Zulip server that is not
// configured for push notifications: /server_settings says push_notifications_enabled
// false, and registering for or testing notifications is refused.

export const pushServiceNotConfigured = () =>
  new JsonableError(
    "Server is not configured to use push notification service.",
    "PUSH_SERVICE_NOT_CONFIGURED",
    400,
  );
const invalidPushDeviceToken = () =>
  new JsonableError("Device not recognized", "INVALID_PUSH_DEVICE_TOKEN", 400);
const noActivePushDevice = () =>
  new JsonableError("No active registered push device", "NO_ACTIVE_PUSH_DEVICE", 400);

/** POST /mobile_push/register: Zulip refuses before looking at the device. */
export function refusePushDeviceRegistration(user: UserRow): never {
  if (bool(user.is_bot)) throw botsNotAllowed();
  throw pushServiceNotConfigured();
}

/**
 * POST /mobile_push/test_notification. An unknown token is Zulip's error; otherwise
 * Zulip, with nothing configured, would drop the notification and report success:
 * chatd says why no notification will come instead.
 */
export async function refuseTestNotification(app: App, user: UserRow, token?: string): Promise<never> {
  if (bool(user.is_bot)) throw botsNotAllowed();
  if (token !== undefined) {
    const known = await app
      .knex("push_devices")
      .where({ user_id: user.id, token })
      .first<{ id: number } | undefined>("id");
    if (!known) throw invalidPushDeviceToken();
  }
  throw pushServiceNotConfigured();
}

/**
 * POST /mobile_push/e2ee/test_notification: Zulip tests the devices whose registration
 * with the push service completed, and without a push service none ever does.
 */
export function refuseE2eeTestNotification(user: UserRow): never {
  if (bool(user.is_bot)) throw botsNotAllowed();
  throw noActivePushDevice();
}
