import { userGroupEvents } from "../presenters/events/user-groups.js";
import { subscriptionEvents } from "../presenters/events/channels.js";
import { VIEWER_SEES_EMAIL, realmUserEvents } from "../presenters/events/users.js";
import type { App } from "../app.js";
import { emailHost } from "../config.js";
import { bool, int, type UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import { badRequest, insufficientPermission, mustBeAdmin, mustBeOwner, noSuchUser } from "../errors.js";
import { dummyEmail, isValidEmail } from "../lib/emails.js";
import type { RealmSnapshot } from "../world/realm.js";
import { activeUserIds } from "../lib/recipients.js";
import { hashPassword } from "../lib/passwords.js";
import { ROLE, isAdminRole, isOwnerRole, type Role } from "../world/roles.js";
import {
  directSystemGroupsForRole,
  isProvisionalMember,
  type SystemGroupName,
} from "../world/system-groups.js";
import { isUserInGroup } from "../permissions/group-settings.js";
import { clientMayComputeGravatar, gravatarUrl, presentUser } from "../presenters/users.js";
import { EMAIL_VISIBILITY, canSeeDeliveryEmail } from "../permissions/email-visibility.js";
import { doUpdateProfileData, validateProfileData, type ProfileDataEntry } from "./custom-profile-fields.js";
import { doSubscribeToDefaultChannels } from "./subscriptions.js";
import { realmUserDefaultsRow } from "../queries/user-settings.js";
import { settingsCopiedForNewUser } from "../world/user-settings.js";
import { notifyChannelAccessChanges } from "./channels.js";
import { channelViewerIds } from "../permissions/channel-access.js";
import { botAdministratorIds, canAdministerBot, mayCreateBot } from "../permissions/bots.js";
import { realmBotEvents } from "../presenters/events/bots.js";
import { reloadBot, sendBotOwnerUpdateEvents, sendBotUpdate } from "./bot-events.js";
import { doClearDefaultChannelsHiddenFrom, doRemoveBotFromChannelsHiddenFrom } from "./bot-owner.js";
import { doEndUserSessions } from "./sessions.js";
import { BOT_TYPE } from "../world/bots.js";

export const MAX_FULL_NAME_LENGTH = 100;
export const MIN_API_PASSWORD_LENGTH = 6;
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

const nameKey = (name: string) => name.normalize("NFKC").toLowerCase();

/** In realms that require unique names, no other user may have the same (case-folded) name. */
export function checkNameAvailable(snapshot: RealmSnapshot, name: string, exceptUserId?: number): void {
  if (!bool(snapshot.realm.require_unique_names)) return;
  for (const user of snapshot.users) {
    if (user.id !== exceptUserId && nameKey(user.full_name) === nameKey(name)) {
      throw badRequest("Unique names required in this organization.");
    }
  }
}

/** No other user of the realm may have the address, as real or API email (any case). */
export function checkEmailAvailable(snapshot: RealmSnapshot, email: string, exceptUserId?: number): void {
  const holder = snapshot.userByEmail(email);
  if (holder && holder.id !== exceptUserId) throw badRequest(`Email '${email}' already in use`);
}

/** Zulip's password strength gate for accounts created by administrators. */
export function checkPasswordStrength(password: string): string {
  if (password.length < MIN_API_PASSWORD_LENGTH) throw badRequest("The password is too weak.");
  return password;
}

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
}

/** The user_group add_members / remove_members event Zulip sends to the whole realm. */
function sendGroupMembersEvent(
  tx: Tx,
  snapshot: RealmSnapshot,
  op: "add_members" | "remove_members",
  groupId: number,
  userIds: number[],
): void {
  const node = snapshot.groups.get(groupId);
  if (!node) return;
  tx.sendEventOnCommit(
    snapshot.realm.id,
    userGroupEvents.members(op, node, userIds),
    activeUserIds(snapshot),
  );
}

/**
 * Group member lists show active users only, so (de)activating a user changes every
 * named group they belong to directly; clients learn it through member events.
 */
function sendMembershipEventsForActivation(
  tx: Tx,
  snapshot: RealmSnapshot,
  userId: number,
  active: boolean,
): void {
  for (const node of snapshot.groups.values()) {
    if (node.row.name !== null && node.members.includes(userId)) {
      sendGroupMembersEvent(tx, snapshot, active ? "add_members" : "remove_members", node.row.id, [userId]);
    }
  }
}

/** Role groups before role:fullmembers, as Zulip sends their events. */
const systemGroupOrder = (names: SystemGroupName[]) =>
  [...names].sort((a, b) => Number(a === "role:fullmembers") - Number(b === "role:fullmembers"));

/**
 * Inserts a user, puts it in its role's system groups, and tells the realm. Validation
 * of the input is the caller's (checkX) job; this only writes.
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
  // New people join the realm's default channels (bots do not).
  await doSubscribeToDefaultChannels(app, tx, user);
  return user;
}

/** Who asks for a change: a user over the API, or the server operator through the CLI. */
export type Actor = UserRow | "operator";

const actorIsOwner = (actor: Actor) => actor === "operator" || isOwnerRole(actor.role);

export interface CheckCreateUserInput {
  email: string;
  fullName: string;
  password: string | null;
  role?: Role;
}

/**
 * Creates a human user after validating the input, in Zulip's order. API callers must
 * be administrators (the endpoint checks) holding can_create_users; the operator (CLI)
 * may always.
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
  const email = input.email.trim();
  if (!isValidEmail(email)) throw badRequest("Bad name or username");
  // Zulip's order of checks, then the hash outside the write transaction (it waits for a
  // hashing slot under a login flood); the transaction checks availability again.
  const before = await app.realms.get(app.knex, realmId);
  checkNameAvailable(before, fullName);
  checkEmailAvailable(before, email);
  const password = input.password === null ? null : checkPasswordStrength(input.password);
  const passwordHash = password === null ? null : await hashPassword(password, app.scrypt);
  return app.db.transaction(async (tx) => {
    const snapshot = await app.realms.get(tx.knex, realmId);
    checkNameAvailable(snapshot, fullName);
    checkEmailAvailable(snapshot, email);
    return doCreateUser(app, tx, { realmId, email, fullName, passwordHash, role: input.role });
  });
}

// ---- changing a user ----

/** The realm's active human owners. */
function activeHumanOwners(snapshot: RealmSnapshot): UserRow[] {
  return [...snapshot.users].filter((u) => bool(u.is_active) && !bool(u.is_bot) && isOwnerRole(u.role));
}

const isOnlyOwner = (snapshot: RealmSnapshot, target: UserRow) => {
  const owners = activeHumanOwners(snapshot);
  return owners.length === 1 && owners[0]!.id === target.id;
};

/** Who may change a user's or a bot's role: owners where the owner role is involved, else administrators. */
export function checkMayChangeRole(actor: Actor, from: number, to: Role): void {
  if ((to === ROLE.OWNER || from === ROLE.OWNER) && !actorIsOwner(actor)) throw mustBeOwner();
  if (actor !== "operator" && !isAdminRole(actor.role)) throw mustBeAdmin();
}

/** SPEC's role rules; returns whether the role actually changes. */
export function checkRoleChange(snapshot: RealmSnapshot, actor: Actor, target: UserRow, role: Role): boolean {
  if (target.role === role) return false;
  checkMayChangeRole(actor, target.role, role);
  if (target.role === ROLE.OWNER && isOnlyOwner(snapshot, target)) {
    throw badRequest("The owner permission cannot be removed from the only organization owner.");
  }
  if (target.role === ROLE.GUEST && isAdminRole(role)) {
    throw badRequest("Guests cannot be organization administrators");
  }
  return true;
}

/**
 * Changes a user's role: the row, its direct system-group memberships, and the events
 * (realm_user role update, then user_group remove/add for each group that changes).
 */
export async function doChangeUserRole(app: App, tx: Tx, target: UserRow, role: Role): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  await tx.knex("users").where({ id: target.id }).update({ role });
  tx.afterCommit(() => app.realms.invalidate(target.realm_id));
  tx.sendEventOnCommit(
    target.realm_id,
    realmUserEvents.update({ user_id: target.id, role }),
    activeUserIds(snapshot),
  );
  // role:fullmembers as it is, and as the waiting period decides for the new role.
  const wasFullMember = isUserInGroup(snapshot, target.id, snapshot.systemGroupId("role:fullmembers"), {
    directOnly: true,
  });
  const before = directSystemGroupsForRole(target.role, wasFullMember);
  const after = directSystemGroupsForRole(
    role,
    !isProvisionalMember(int(target.date_joined), snapshot.realm.waiting_period_threshold, tx.now),
  );
  const removed = systemGroupOrder(before.filter((g) => !after.includes(g)));
  const added = systemGroupOrder(after.filter((g) => !before.includes(g)));
  // Role groups first, then role:fullmembers, removals before additions (as Zulip).
  const steps: ReadonlyArray<readonly ["add_members" | "remove_members", SystemGroupName]> = [
    ...removed.filter((g) => g !== "role:fullmembers").map((g) => ["remove_members", g] as const),
    ...added.filter((g) => g !== "role:fullmembers").map((g) => ["add_members", g] as const),
    ...removed.filter((g) => g === "role:fullmembers").map((g) => ["remove_members", g] as const),
    ...added.filter((g) => g === "role:fullmembers").map((g) => ["add_members", g] as const),
  ];
  for (const [op, name] of steps) {
    const groupId = snapshot.systemGroupId(name);
    if (op === "remove_members") {
      await tx.knex("user_group_members").where({ group_id: groupId, user_id: target.id }).delete();
    } else {
      await tx
        .knex("user_group_members")
        .insert({ group_id: groupId, user_id: target.id })
        .onConflict()
        .ignore();
    }
    sendGroupMembersEvent(tx, snapshot, op, groupId, [target.id]);
  }
  await notifyChannelAccessChanges(app, tx, snapshot);
}

export async function doChangeFullName(app: App, tx: Tx, target: UserRow, fullName: string): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  await tx.knex("users").where({ id: target.id }).update({ full_name: fullName });
  tx.afterCommit(() => app.realms.invalidate(target.realm_id));
  tx.sendEventOnCommit(
    target.realm_id,
    realmUserEvents.update({ user_id: target.id, full_name: fullName }),
    activeUserIds(snapshot),
  );
  await sendBotUpdate(
    app,
    tx,
    { ...target, full_name: fullName },
    { user_id: target.id, full_name: fullName },
  );
}

/**
 * Zulip's notify_avatar_url_change: the user's avatar, to everyone; each recipient's
 * client_gravatar treatment depends on whether they may see the (changed) user's email.
 */
function sendAvatarUpdate(tx: Tx, changed: UserRow, viewers: readonly UserRow[]): void {
  const person = {
    user_id: changed.id,
    avatar_source: changed.avatar_source,
    avatar_url: gravatarUrl(changed.delivery_email, changed.avatar_version),
    avatar_url_medium: gravatarUrl(changed.delivery_email, changed.avatar_version, true),
    avatar_version: changed.avatar_version,
  };
  tx.sendEventOnCommit(
    changed.realm_id,
    realmUserEvents.update(person),
    new Map(viewers.map((v) => [v.id, { [VIEWER_SEES_EMAIL]: clientMayComputeGravatar(v, changed) }])),
  );
}

/**
 * Changes a user's real email. Those who may see it are told the new delivery_email;
 * a gravatar follows the address, so everyone gets the new avatar; and when the email
 * is public, the API email changes too (new_email).
 */
export async function doChangeDeliveryEmail(app: App, tx: Tx, target: UserRow, email: string): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  const publicEmail = target.email_address_visibility === EMAIL_VISIBILITY.EVERYONE;
  await tx
    .knex("users")
    .where({ id: target.id })
    .update(publicEmail ? { delivery_email: email, email } : { delivery_email: email });
  tx.afterCommit(() => app.realms.invalidate(target.realm_id));
  const viewers = [...snapshot.users].filter((u) => bool(u.is_active));
  tx.sendEventOnCommit(
    target.realm_id,
    realmUserEvents.update({ user_id: target.id, delivery_email: email }),
    viewers.filter((v) => canSeeDeliveryEmail(v, target)).map((v) => v.id),
  );
  if (target.avatar_source === "G") sendAvatarUpdate(tx, { ...target, delivery_email: email }, viewers);
  if (publicEmail) {
    tx.sendEventOnCommit(
      target.realm_id,
      realmUserEvents.update({ user_id: target.id, new_email: email }),
      viewers.map((v) => v.id),
    );
  }
}

/**
 * After a user changed who may see their real email (the users row already holds the
 * new value): those who gain or lose sight of it learn the delivery_email (or null);
 * and since the API email is the real one only while everyone may see it, a change to
 * or from "everyone" gives the user a new API email (new_email) and everyone the avatar
 * again, as Zulip's do_change_user_setting does. Returns the user's API email afterwards.
 */
export async function doChangeEmailVisibility(
  app: App,
  tx: Tx,
  target: UserRow,
  before: number,
  after: number,
): Promise<string> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  const viewers = [...snapshot.users].filter((u) => bool(u.is_active));
  const old = { ...target, email_address_visibility: before };
  const changed = { ...target, email_address_visibility: after };
  const gained = viewers.filter((v) => !canSeeDeliveryEmail(v, old) && canSeeDeliveryEmail(v, changed));
  const lost = viewers.filter((v) => canSeeDeliveryEmail(v, old) && !canSeeDeliveryEmail(v, changed));
  for (const [delivery_email, recipients] of [
    [target.delivery_email, gained],
    [null, lost],
  ] as const) {
    if (recipients.length === 0) continue;
    tx.sendEventOnCommit(
      target.realm_id,
      realmUserEvents.update({ user_id: target.id, delivery_email }),
      recipients.map((v) => v.id),
    );
  }
  if (before !== EMAIL_VISIBILITY.EVERYONE && after !== EMAIL_VISIBILITY.EVERYONE) return target.email;
  const email =
    after === EMAIL_VISIBILITY.EVERYONE
      ? target.delivery_email
      : dummyEmail(target.id, emailHost(app.config));
  if (email === target.email) return email;
  await tx.knex("users").where({ id: target.id }).update({ email });
  tx.afterCommit(() => app.realms.invalidate(target.realm_id));
  tx.sendEventOnCommit(
    target.realm_id,
    realmUserEvents.update({ user_id: target.id, new_email: email }),
    viewers.map((v) => v.id),
  );
  sendAvatarUpdate(tx, { ...changed, email }, viewers);
  return email;
}

export interface UpdateUserInput {
  fullName?: string;
  role?: Role;
  profileData?: ProfileDataEntry[];
  newEmail?: string;
}

/**
 * PATCH /users/{user_id} and /users/{email} (administrators; the endpoint checks), and
 * the CLI's role changes. Everything is validated and written in one transaction, in
 * Zulip's order: role, full name, custom profile data, email.
 */
export async function checkUpdateUser(
  app: App,
  realmId: number,
  actor: Actor,
  targetId: number,
  input: UpdateUserInput,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const snapshot = await app.realms.get(tx.knex, realmId);
    const target = snapshot.user(targetId);
    if (!target) throw noSuchUser();
    if (input.newEmail !== undefined) {
      if (!actorIsOwner(actor)) throw mustBeOwner();
      if (actor !== "operator" && !bool(actor.can_change_user_emails)) throw insufficientPermission();
    }
    if (input.role !== undefined && checkRoleChange(snapshot, actor, target, input.role)) {
      await doChangeUserRole(app, tx, target, input.role);
    }
    // A blank name is ignored, as Zulip does; administrators are not bound by
    // name_changes_disabled.
    if (input.fullName !== undefined && input.fullName.trim() !== "" && input.fullName !== target.full_name) {
      const fullName = checkFullName(input.fullName);
      checkNameAvailable(snapshot, fullName, target.id);
      if (fullName !== target.full_name) await doChangeFullName(app, tx, target, fullName);
    }
    if (input.profileData !== undefined) {
      const change = await validateProfileData(tx, snapshot, true, input.profileData, { removeEmpty: true });
      await doUpdateProfileData(app, tx, target, change);
    }
    if (input.newEmail !== undefined) {
      const email = input.newEmail.trim();
      if (!isValidEmail(email)) throw badRequest("Invalid address.");
      checkEmailAvailable(snapshot, email, target.id);
      if (email !== target.delivery_email) await doChangeDeliveryEmail(app, tx, target, email);
    }
  });
}

// ---- deactivation ----

/**
 * Deactivates a user and the active bots they own. Their web sessions end with it (and are
 * deleted: a reactivated user logs in again); the event hub drops their event queues when
 * it publishes the deactivation events.
 */
export async function doDeactivateUser(app: App, tx: Tx, target: UserRow): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  const bots = [...snapshot.users].filter(
    (u) => bool(u.is_bot) && u.bot_owner_id === target.id && bool(u.is_active),
  );
  const channels = await app.channels.get(tx.knex, target.realm_id);
  for (const user of [...bots, target]) {
    await tx.knex("users").where({ id: user.id }).update({ is_active: false });
    await tx.knex("subscriptions").where({ user_id: user.id }).update({ is_user_active: false });
    await doEndUserSessions(app, tx, user.id);
    tx.sendEventOnCommit(
      target.realm_id,
      realmUserEvents.update({ user_id: user.id, is_active: false }),
      activeUserIds(snapshot),
    );
    sendMembershipEventsForActivation(tx, snapshot, user.id, false);
    await sendSubscriberActivationEvents(app, tx, snapshot, user.id, "peer_remove");
    if (bool(user.is_bot)) {
      tx.sendEventOnCommit(
        target.realm_id,
        realmBotEvents.update({ user_id: user.id, is_active: false }),
        botAdministratorIds(snapshot, channels, user),
      );
    }
  }
  tx.afterCommit(() => app.realms.invalidate(target.realm_id));
}

/**
 * DELETE /users/{user_id} (administrators; the endpoint checks): only an owner may
 * deactivate an owner, and never the only one. Bots are managed through /bots, so the
 * API does not reach them; the operator may.
 */
export async function checkDeactivateUser(
  app: App,
  realmId: number,
  actor: Actor,
  targetId: number,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const snapshot = await app.realms.get(tx.knex, realmId);
    const target = snapshot.user(targetId);
    if (!target || (bool(target.is_bot) && actor !== "operator")) throw noSuchUser();
    if (!bool(target.is_active)) throw badRequest("User is deactivated");
    if (isOwnerRole(target.role) && !actorIsOwner(actor)) throw mustBeOwner();
    if (isOnlyOwner(snapshot, target)) throw badRequest("Cannot deactivate the only organization owner");
    await doDeactivateUser(app, tx, target);
  });
}

/**
 * Reactivates a user. A bot whose owner is deactivated passes to the user reactivating
 * it (never to the operator), as in Zulip, keeping only what they may reach (bot-owner.ts).
 */
export async function doReactivateUser(
  app: App,
  tx: Tx,
  target: UserRow,
  actor: Actor = "operator",
): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  await tx.knex("users").where({ id: target.id }).update({ is_active: true });
  await tx.knex("subscriptions").where({ user_id: target.id }).update({ is_user_active: true });
  const previousOwner = target.bot_owner_id === null ? undefined : snapshot.user(target.bot_owner_id);
  const ownerChanges =
    bool(target.is_bot) &&
    actor !== "operator" &&
    previousOwner !== undefined &&
    !bool(previousOwner.is_active);
  if (ownerChanges) {
    await doClearDefaultChannelsHiddenFrom(app, tx, await reloadBot(tx, target.id), actor);
    await tx.knex("users").where({ id: target.id }).update({ bot_owner_id: actor.id });
  }
  tx.afterCommit(() => app.realms.invalidate(target.realm_id));
  tx.sendEventOnCommit(target.realm_id, realmUserEvents.update({ user_id: target.id, is_active: true }), [
    ...activeUserIds(snapshot),
    target.id,
  ]);
  if (bool(target.is_bot)) {
    const bot = await reloadBot(tx, target.id);
    await sendBotUpdate(app, tx, bot, { user_id: bot.id, is_active: true });
    if (ownerChanges) await sendBotOwnerUpdateEvents(app, tx, bot, actor, previousOwner);
  }
  sendMembershipEventsForActivation(tx, snapshot, target.id, true);
  await sendSubscriberActivationEvents(app, tx, snapshot, target.id, "peer_add");
  // Back in its channels, the bot leaves those its new owner may not read.
  if (ownerChanges) await doRemoveBotFromChannelsHiddenFrom(app, tx, await reloadBot(tx, target.id), actor);
}

/**
 * Subscriber lists show active users only: a user's (de)activation removes them from, or
 * returns them to, the subscriber lists of their channels, for everyone who sees those.
 */
async function sendSubscriberActivationEvents(
  app: App,
  tx: Tx,
  snapshot: RealmSnapshot,
  userId: number,
  op: "peer_add" | "peer_remove",
): Promise<void> {
  const channels = await app.channels.get(tx.knex, snapshot.realm.id);
  for (const subscription of channels.subscriptionsOf(userId)) {
    if (!bool(subscription.active)) continue;
    const channel = channels.channel(subscription.stream_id);
    if (!channel) continue;
    const viewers = channelViewerIds(snapshot, channel, channels.subscriberIds(channel.id));
    viewers.delete(userId);
    tx.sendEventOnCommit(snapshot.realm.id, subscriptionEvents.peers(op, [channel.id], [userId]), viewers);
  }
}

/**
 * POST /users/{user_id}/reactivate: administrators reactivate users, and a bot's owner
 * may reactivate the bot too (Zulip's can_admin_user). A bot comes back only if the
 * one reactivating it may create such a bot and no other active user has its name.
 * Reactivating an active user changes nothing, as in Zulip (which has no such check).
 */
export async function checkReactivateUser(
  app: App,
  realmId: number,
  actor: Actor,
  targetId: number,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const snapshot = await app.realms.get(tx.knex, realmId);
    const target = snapshot.user(targetId);
    if (!target) throw noSuchUser();
    if (actor !== "operator") {
      if (!bool(target.is_bot) && !isAdminRole(actor.role)) throw mustBeAdmin();
      if (bool(target.is_bot)) {
        if (!canAdministerBot(actor, target)) throw insufficientPermission();
        if (!mayCreateBot(snapshot, actor, target.bot_type ?? BOT_TYPE.GENERIC))
          throw insufficientPermission();
        checkBotNameAvailable(snapshot, target.full_name, { activation: true, exceptUserId: target.id });
      }
    }
    if (bool(target.is_mirror_dummy)) {
      throw badRequest("Cannot activate a placeholder account; ask the user to sign up, instead.");
    }
    if (bool(target.is_active)) return;
    await doReactivateUser(app, tx, target, actor);
  });
}

/**
 * Zulip's check_bot_name_available: no active user of the realm may have exactly this
 * name (a guard against mistakes, not a guarantee of unique names).
 */
export function checkBotNameAvailable(
  snapshot: RealmSnapshot,
  fullName: string,
  options: { activation?: boolean; exceptUserId?: number } = {},
): void {
  const name = fullName.trim();
  const taken = [...snapshot.users].some(
    (u) => bool(u.is_active) && u.id !== options.exceptUserId && u.full_name === name,
  );
  if (!taken) return;
  if (options.activation) {
    throw badRequest(
      `There is already an active bot named "${fullName}" in this organization. To reactivate this bot, you must rename or deactivate the other one first.`,
    );
  }
  throw badRequest("Name is already in use.");
}

/**
 * Sets a user's password (the CLI's set-password); API keys stay valid, web sessions end
 * (as a change in the settings ends the others: whoever knew the old password is out).
 */
export async function checkSetPassword(
  app: App,
  realmId: number,
  targetId: number,
  password: string,
): Promise<void> {
  checkPasswordStrength(password);
  const hash = await hashPassword(password, app.scrypt);
  await app.db.transaction(async (tx) => {
    const snapshot = await app.realms.get(tx.knex, realmId);
    const target = snapshot.user(targetId);
    if (!target) throw noSuchUser();
    if (bool(target.is_bot)) throw badRequest("Bots cannot have a password.");
    await tx.knex("users").where({ id: target.id }).update({ password_hash: hash });
    await doEndUserSessions(app, tx, target.id);
    tx.afterCommit(() => app.realms.invalidate(realmId));
  });
}
