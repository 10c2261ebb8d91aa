import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import { badRequest } from "../errors.js";
import { deviceEvents } from "../presenters/events/user-data.js";

/**
 * The mobile app's devices (Zulip's register_client_device / remove_client_device). Each
 * change is announced to the user's own queues with a `device` event, so the app's other
 * sessions know the device list is current.
 */

/** Another user's device looks exactly like a missing one. */
export const invalidDeviceId = () => badRequest("Invalid `device_id`");

/** POST /register_client_device: a new device of the user; returns its ID. Bots may too. */
export function checkRegisterClientDevice(app: App, user: UserRow): Promise<number> {
  return app.db.transaction(async (tx) => {
    const id = await insertReturningId(tx.knex, "client_devices", {
      user_id: user.id,
      date_created: tx.now,
    });
    tx.sendEventOnCommit(user.realm_id, deviceEvents.add(id), [user.id]);
    return id;
  });
}

/** POST /remove_client_device: the app calls it when it logs out. */
export async function checkRemoveClientDevice(app: App, user: UserRow, deviceId: number): Promise<void> {
  await app.db.transaction(async (tx) => {
    const removed = await tx.knex("client_devices").where({ id: deviceId, user_id: user.id }).delete();
    if (removed === 0) throw invalidDeviceId();
    tx.sendEventOnCommit(user.realm_id, deviceEvents.remove(deviceId), [user.id]);
  });
}
