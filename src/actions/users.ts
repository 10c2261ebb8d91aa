import type { App } from "../app-context.js";
import { emailHost } from "../config.js";
import { bool, type UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { dummyEmail, isValidEmail } from "../lib/emails.js";
import type { RealmSnapshot } from "../lib/realm-cache.js";
import { hashPassword } from "../lib/passwords.js";
import { ROLE, type Role } from "../permissions/roles.js";
import { directSystemGroupsForRole } from "../permissions/system-groups.js";
import { EMAIL_VISIBILITY, presentUser } from "../presenters/users.js";
import { doSubscribeToDefaultChannels } from "./subscriptions.js";

export const MAX_FULL_NAME_LENGTH = 100;
const NAME_INVALID_CHARS = /[*`\\>"@]/;

/** Zulip's check_full_name: returns the trimmed name or refuses it. */
export function checkFullName(raw: string): string {
  const name = raw.trim();
  if (name.length > MAX_FULL_NAME_LENGTH) throw badRequest("Name too long!");
  if (!name) throw badRequest("Name must not be empty!");
  // eslint-disable-next-line no-control-regex
  if (NAME_INVALID_CHARS.test(name) || /[\u0000-\u001f\u007f]/.test(name)) {
    throw badRequest("Invalid characters in name!");
  }
  if (/\|\d+$/.test(name)) throw badRequest("Invalid format!");
  return name;
}

export function checkNewEmail(snapshot: RealmSnapshot, raw: string): string {
  const email = raw.trim();
  if (!isValidEmail(email)) throw badRequest(`Invalid email '${email}'`);
  if (snapshot.userByEmail(email)?.delivery_email.toLowerCase() === email.toLowerCase()) {
    throw badRequest(`Email '${email}' already in use`);
  }
  return email;
}

export interface CreateUserInput {
  realmId: number;
  email: string;
  fullName: string;
  role?: Role;
  password?: string | null;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  timezone?: string;
  canCreateUsers?: boolean;
  canChangeUserEmails?: boolean;
  emailAddressVisibility?: number;
}

/**
 * Inserts a user, puts it in its role's system groups, and tells the realm. Validation
 * of the input is the caller's (checkX) job; this only writes.
 */
export async function doCreateUser(app: App, tx: Tx, input: CreateUserInput): Promise<UserRow> {
  const role = input.role ?? ROLE.MEMBER;
  const visibility = input.emailAddressVisibility ?? EMAIL_VISIBILITY.EVERYONE;
  const id = await insertReturningId(tx.knex, "users", {
    realm_id: input.realmId,
    email: input.email,
    delivery_email: input.email,
    full_name: input.fullName,
    role,
    is_bot: input.isBot ?? false,
    bot_type: input.botType ?? null,
    bot_owner_id: input.botOwnerId ?? null,
    date_joined: tx.now,
    timezone: input.timezone ?? "",
    email_address_visibility: visibility,
    password_hash: input.password ? await hashPassword(input.password) : null,
    can_create_users: input.canCreateUsers ?? false,
    can_change_user_emails: input.canChangeUserEmails ?? false,
  });
  // Humans whose email is not public authenticate with the dummy address.
  if (!input.isBot && visibility !== EMAIL_VISIBILITY.EVERYONE) {
    await tx
      .knex("users")
      .where({ id })
      .update({ email: dummyEmail(id, emailHost(app.config)) });
  }
  const groups = await tx
    .knex("user_groups")
    .where({ realm_id: input.realmId, is_system_group: true })
    .whereIn("name", directSystemGroupsForRole(role))
    .select<Array<{ id: number }>>("id");
  if (groups.length > 0) {
    await tx.knex("user_group_members").insert(groups.map((g) => ({ group_id: g.id, user_id: id })));
  }
  const user = (await tx.knex<UserRow>("users").where({ id }).first())!;
  tx.afterCommit(() => app.cache.invalidate(input.realmId));

  const snapshot = await app.cache.get(tx.knex, input.realmId);
  const recipients = new Map<number, Record<string, unknown>>();
  for (const viewer of [...snapshot.users, user]) {
    if (!bool(viewer.is_active)) continue;
    const person = presentUser(viewer, user, { clientGravatar: false });
    if (!bool(user.is_bot)) person.profile_data = {};
    recipients.set(viewer.id, { person });
  }
  tx.sendEventOnCommit(input.realmId, { type: "realm_user", op: "add" }, recipients);
  // New people join the realm's default channels (bots do not).
  await doSubscribeToDefaultChannels(app, tx, user);
  return user;
}

/** Who asks for a change: a user over the API, or the server operator through the CLI. */
export type Actor = UserRow | "operator";

export interface CheckCreateUserInput {
  email: string;
  fullName: string;
  password: string | null;
  role?: Role;
}

/**
 * Creates a human user after validating the input. API callers must be administrators
 * holding can_create_users; the operator (CLI) may always.
 */
export async function checkCreateUser(
  app: App,
  realmId: number,
  actor: Actor,
  input: CheckCreateUserInput,
): Promise<UserRow> {
  if (actor !== "operator" && !bool(actor.can_create_users)) {
    throw badRequest("User not authorized to create users");
  }
  const fullName = checkFullName(input.fullName);
  return app.db.transaction(async (tx) => {
    const snapshot = await app.cache.get(tx.knex, realmId);
    const email = checkNewEmail(snapshot, input.email);
    return doCreateUser(app, tx, { realmId, email, fullName, password: input.password, role: input.role });
  });
}
