import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { NOTIFICATION_BOT, systemBot } from "./system-bots.js";

/** The realm's Notification Bot, created on first use (system-bots.ts). */
export function notificationBot(app: App, tx: Tx, realmId: number): Promise<UserRow> {
  return systemBot(app, tx, realmId, NOTIFICATION_BOT);
}
