import { userGroupEvents } from "../presenters/events/user-groups.js";
import { realmUserEvents } from "../presenters/events/users.js";
import type { App } from "../app.js";
import { emailHost } from "../config.js";
import { bool, type UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { dummyEmail, isValidEmail } from "../lib/emails.js";
import { hashPassword } from "../lib/passwords.js";
import {
  validateEmailAvailable,
  validateFullName,
  validateNameAvailable,
  validatePasswordStrength,
} from "../lib/user-validation.js";
import { ROLE, type Role } from "../world/roles.js";
import { directSystemGroupsForRole, type SystemGroupName } from "../world/system-groups.js";
import { presentUser } from "../presenters/users.js";
import { EMAIL_VISIBILITY } from "../permissions/email-visibility.js";
import { doAddSubscriptions, doSubscribeToDefaultChannels } from "./subscriptions.js";
import { loadWorld } from "../cache/world.js";
import type { ChannelRow } from "../db/channel-rows.js";
import { isArchived } from "../permissions/channel-access.js";
import { doAddNewUserHistory } from "./new-user-history.js";
import { realmUserDefaultsRow } from "../queries/user-settings.js";
import { settingsCopiedForNewUser } from "../world/user-settings.js";
import { systemGroupOrder, type Actor } from "./users.js";
import { doSendInitialDirectMessages } from "./welcome-bot.js";

export interface CreateUserInput {
  realmId: number;
  email: string;
  fullName: string;
  role?: Role;
  /** Hashed before the write transaction: scrypt must never hold the write lock. */
  passwordHash?: string | null;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  timezone?: string;
  canCreateUsers?: boolean;
  canChangeUserEmails?: boolean;
  emailAddressVisibility?: number;
  /** Bots: where they send and register by default (channel IDs). */
  defaultSendingStreamId?: number | null;
  defaultEventsRegisterStreamId?: number | null;
  defaultAllPublicStreams?: boolean;
  /** People: whether they join the realm's default channels (an invitation decides; default yes). */
  defaultChannels?: boolean;
  /** People: further channels they join (an invitation's). */
  channelIds?: readonly number[];
}

/**
 * Inserts a user, puts it in its role's system groups, and tells the realm; a person also
 * joins the default channels and gets their recent messages. Validation of the input is
 * the caller's (checkX) job; this only writes. Welcome Bot's greeting is the callers' last
 * step for a person (doSendInitialDirectMessages), after their own onboarding notices, as
 * Zulip orders process_new_human_user; test fixtures, like Zulip's, create users without it.
 */
export async function doCreateUser(app: App, tx: Tx, input: CreateUserInput): Promise<UserRow> {
  const role = input.role ?? ROLE.MEMBER;
  // People start with the realm's settings for new users; bots with Zulip's defaults.
  const defaults = input.isBot ? null : await realmUserDefaultsRow(tx.knex, input.realmId);
  const visibility =
    input.emailAddressVisibility ?? defaults?.email_address_visibility ?? EMAIL_VISIBILITY.EVERYONE;
  // The realm as the transaction sees it, before the user: its language, its groups.
  const snapshot = await app.realms.get(tx.knex, input.realmId);
  const id = await insertReturningId(tx.knex, "users", {
    ...(defaults ? settingsCopiedForNewUser(defaults) : {}),
    ...(defaults ? { default_language: snapshot.realm.default_language } : {}),
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
    password_hash: input.passwordHash ?? null,
    can_create_users: input.canCreateUsers ?? false,
    can_change_user_emails: input.canChangeUserEmails ?? false,
    default_sending_stream_id: input.defaultSendingStreamId ?? null,
    default_events_register_stream_id: input.defaultEventsRegisterStreamId ?? null,
    default_all_public_streams: input.defaultAllPublicStreams ?? false,
  });
  // Humans whose email is not public authenticate with the dummy address.
  if (!input.isBot && visibility !== EMAIL_VISIBILITY.EVERYONE) {
    await tx
      .knex("users")
      .where({ id })
      .update({ email: dummyEmail(id, emailHost(app.config)) });
  }
  // Joining now: a full member only where the realm has no waiting period.
  const groupNames = systemGroupOrder(
    directSystemGroupsForRole(role, snapshot.realm.waiting_period_threshold === 0),
  );
  const groups = await tx
    .knex("user_groups")
    .where({ realm_id: input.realmId, is_system_group: true })
    .whereIn("name", groupNames)
    .select<Array<{ id: number; name: SystemGroupName }>>("id", "name");
  if (groups.length > 0) {
    await tx.knex("user_group_members").insert(groups.map((g) => ({ group_id: g.id, user_id: id })));
  }
  const user = (await tx.knex<UserRow>("users").where({ id }).first())!;
  tx.afterCommit(() => app.realms.invalidate(input.realmId));

  const recipients = new Map<number, Record<string, unknown>>();
  for (const viewer of [...snapshot.users, user]) {
    if (!bool(viewer.is_active)) continue;
    const person = presentUser(viewer, user, { clientGravatar: false });
    if (!bool(user.is_bot)) person.profile_data = {};
    recipients.set(viewer.id, { person });
  }
  tx.sendEventOnCommit(input.realmId, realmUserEvents.add(), recipients);
  for (const name of groupNames) {
    const node = snapshot.groups.get(groups.find((g) => g.name === name)?.id ?? -1);
    if (!node) continue;
    tx.sendEventOnCommit(
      input.realmId,
      userGroupEvents.members("add_members", node, [id]),
      recipients.keys(),
    );
  }
  // New people join the realm's default channels (bots do not) unless an invitation says
  // otherwise, and the invitation's channels, with their recent history.
  const joined = input.defaultChannels === false ? [] : await doSubscribeToDefaultChannels(app, tx, user);
  if (!input.isBot && input.channelIds && input.channelIds.length > 0) {
    const world = await loadWorld(app, tx.knex, user.realm_id);
    const joinedIds = new Set(joined.map((c) => c.id));
    const more = input.channelIds
      .map((channelId) => world.channels.channel(channelId))
      .filter((c): c is ChannelRow => c !== undefined && !isArchived(c) && !joinedIds.has(c.id));
    if (more.length > 0) {
      await doAddSubscriptions(app, tx, world, more, [user], { fromUserCreation: true });
      joined.push(...more);
    }
  }
  await doAddNewUserHistory(tx, user, joined);
  return user;
}

export interface CheckCreateUserInput {
  email: string;
  fullName: string;
  password: string | null;
  role?: Role;
}

/**
 * Creates a human user after validating the input, in Zulip's order, and Welcome Bot
 * greets them (Zulip's process_new_human_user). API callers must be administrators (the
 * endpoint checks) holding can_create_users; the operator (CLI) may always.
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
  const fullName = validateFullName(input.fullName);
  const email = input.email.trim();
  if (!isValidEmail(email)) throw badRequest("Bad name or username");
  // Zulip's order of checks, then the hash outside the write transaction (it waits for a
  // hashing slot under a login flood); the transaction checks availability again.
  const before = await app.realms.get(app.knex, realmId);
  validateNameAvailable(before, fullName);
  validateEmailAvailable(before, email);
  const password = input.password === null ? null : validatePasswordStrength(input.password);
  const passwordHash = password === null ? null : await hashPassword(password, app.scrypt);
  return app.db.transaction(async (tx) => {
    const snapshot = await app.realms.get(tx.knex, realmId);
    validateNameAvailable(snapshot, fullName);
    validateEmailAvailable(snapshot, email);
    const user = await doCreateUser(app, tx, { realmId, email, fullName, passwordHash, role: input.role });
    await doSendInitialDirectMessages(app, tx, user);
    return user;
  });
}
