import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import { badRequest, botsNotAllowed } from "../errors.js";

/** push_devices.kind */
export const PUSH_KIND = { APNS: 1, FCM: 2 } as const;
export type PushKind = (typeof PUSH_KIND)[keyof typeof PUSH_KIND];

const MAX_TOKEN_LENGTH = 4096;

/** Python's bytes.fromhex: hex digit pairs, whitespace allowed between them. */
const isHexBytes = (token: string) => /^\s*(?:[0-9a-fA-F]{2}\s*)*$/.test(token);

/** Zulip's validate_token: a non-empty token of sane length; APNs tokens are hex. */
export function checkPushToken(token: string, kind: PushKind): string {
  if (token === "" || token.length > MAX_TOKEN_LENGTH) throw badRequest("Empty or invalid length token");
  if (kind === PUSH_KIND.APNS && !isHexBytes(token)) throw badRequest("Invalid APNS token");
  return token;
}

/** An iOS app ID such as org.zulip.Zulip. */
export function checkAppId(appId: string): string {
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
  checkPushToken(token, kind);
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
  checkPushToken(token, kind);
  await app.db.transaction(async (tx) => {
    const removed = await tx.knex("push_devices").where({ user_id: user.id, kind, token }).delete();
    if (removed === 0) throw badRequest("Token does not exist");
  });
}
