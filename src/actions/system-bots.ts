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

const SYSTEM_BOT_KINDS: readonly SystemBotKind[] = [NOTIFICATION_BOT, WELCOME_BOT];

/** The addresses system bots have or will take: not for people. */
export const systemBotEmails = (app: App) =>
  SYSTEM_BOT_KINDS.map((kind) => `${kind.localPart}@${emailHost(app.config)}`.toLowerCase());

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

/**
 * Every system bot of the realm, made now if missing. Register lists them in
 * cross_realm_bots, which no event updates (Zulip's exist before any realm does), so a
 * realm has them from its creation, and older or imported realms from the next start.
 */
export async function ensureSystemBots(app: App, tx: Tx, realmId: number): Promise<void> {
  for (const kind of SYSTEM_BOT_KINDS) await systemBot(app, tx, realmId, kind);
}

/** ensureSystemBots for every realm of the database (at server start). */
export async function ensureAllSystemBots(app: App, tx: Tx): Promise<void> {
  const realms = await tx.knex("realms").select<Array<{ id: number }>>("id");
  for (const { id } of realms) await ensureSystemBots(app, tx, id);
}
