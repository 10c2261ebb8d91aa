import type { App } from "../app.js";
import { emailHost } from "../config.js";
import { insertReturningId } from "../db/insert.js";
import type { UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { ROLE } from "../world/roles.js";
import { EMAIL_VISIBILITY } from "../permissions/email-visibility.js";

/** Zulip's generic bot type. */
const GENERIC_BOT = 1;

/** One of Zulip's internal bots: the local part of its address and its name. */
export interface SystemBotKind {
  readonly localPart: string;
  readonly fullName: string;
}

export const NOTIFICATION_BOT: SystemBotKind = {
  localPart: "notification-bot",
  fullName: "Notification Bot",
};
export const WELCOME_BOT: SystemBotKind = { localPart: "welcome-bot", fullName: "Welcome Bot" };

/** The addresses system bots have or will take: not for people. */
export const systemBotEmails = (app: App) =>
  [NOTIFICATION_BOT, WELCOME_BOT].map((kind) => `${kind.localPart}@${emailHost(app.config)}`.toLowerCase());

/**
 * The realm's bot of this kind, created on first use. Like Zulip's cross-realm bots it
 * is no person of the realm: it belongs to no group, has no API key, and the realm
 * cache keeps it out of user lists (register shows it in cross_realm_bots).
 */
export async function systemBot(app: App, tx: Tx, realmId: number, kind: SystemBotKind): Promise<UserRow> {
  const existing = await tx
    .knex<UserRow>("users")
    .where({ realm_id: realmId, is_system_bot: true })
    .where("email", "like", `${kind.localPart}%`)
    .orderBy("id")
    .first();
  if (existing) return existing;
  const host = emailHost(app.config);
  let email = `${kind.localPart}@${host}`;
  for (let n = 2; await tx.knex("users").where({ realm_id: realmId, email }).first("id"); n++) {
    email = `${kind.localPart}-${n}@${host}`;
  }
  const id = await insertReturningId(tx.knex, "users", {
    realm_id: realmId,
    email,
    delivery_email: email,
    full_name: kind.fullName,
    role: ROLE.MEMBER,
    is_bot: true,
    bot_type: GENERIC_BOT,
    is_system_bot: true,
    date_joined: tx.now,
    email_address_visibility: EMAIL_VISIBILITY.EVERYONE,
  });
  tx.afterCommit(() => app.realms.invalidate(realmId));
  return (await tx.knex<UserRow>("users").where({ id }).first())!;
}
