import type { App } from "../app.js";
import { nowSeconds } from "../clock.js";
import { realmUrl } from "../config.js";
import { loadWorld } from "../cache/world.js";
import { bool, type UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import {
  JsonableError,
  badRequest,
  botsNotAllowed,
  insufficientPermission,
  mustBeOwner,
  notAllowedForGuests,
} from "../errors.js";
import { isValidEmail } from "../lib/emails.js";
import { composeEmail } from "../lib/email-content.js";
import { EMAIL_DOMAIN_ERRORS, loadEmailDomainRule } from "../lib/realm-domains.js";
import { accessChannelById, canAddSubscribers } from "../permissions/channel-access.js";
import { userHasRealmPermission } from "../permissions/setting-permissions.js";
import { accessUserGroupForUpdate } from "../permissions/user-groups.js";
import type { RealmGroupSettingName } from "../permissions/setting-registry.js";
import { invitesChangedEvent } from "../presenters/events/invites.js";
import { presentInvite, type InvitationRow, type WireInvite } from "../presenters/invites.js";
import { ROLE, isAdminRole, isGuestRole, isOwnerRole, type Role } from "../world/roles.js";
import type { RealmSnapshot } from "../world/realm.js";
import { createConfirmation, revokeConfirmations, type ConfirmationRow } from "./confirmations.js";
import { queueEmails } from "./email-queue.js";

/** Zulip's INVITATION_LINK_VALIDITY_DAYS (10), in minutes: the default lifetime. */
export const INVITATION_LINK_VALIDITY_MINUTES = 10 * 24 * 60;

/** Zulip sends a reminder two days before an invitation of at least four days expires. */
const REMINDER_MIN_LIFETIME_SECS = 4 * 24 * 3600;
const REMINDER_BEFORE_EXPIRY_SECS = 2 * 24 * 3600;

/** Zulip's INVITES_MIN_USER_AGE_DAYS (3): how old a member's account must be to invite to an open realm. */
const INVITES_MIN_USER_AGE_SECS = 3 * 24 * 3600;

/** What an invitation makes of the person who accepts it. */
export interface InvitationTerms {
  inviteAs: Role;
  /** null: never expires. */
  expiresInMinutes: number | null;
  streamIds: readonly number[];
  /** User groups the new user joins (Zulip's group_ids). */
  groupIds: readonly number[];
  includeRealmDefaultSubscriptions: boolean;
  notifyReferrerOnJoin: boolean;
}

/** The link a confirmation's token opens: absolute, under the server's public URL. */
export const joinLink = (app: App, token: string) => `${realmUrl(app.config)}/join/${token}/`;

/**
 * Zulip's require_member_or_admin, the realm setting that grants the action, and
 * check_role_based_permissions: only owners invite owners, only administrators invite
 * administrators or moderators.
 */
function checkMayInvite(
  realm: RealmSnapshot,
  actor: UserRow,
  setting: RealmGroupSettingName,
  inviteAs: Role,
): void {
  if (isGuestRole(actor.role)) throw notAllowedForGuests();
  if (bool(actor.is_bot)) throw botsNotAllowed();
  if (!userHasRealmPermission(realm, actor, setting)) throw insufficientPermission();
  checkRoleBasedPermissions(actor, inviteAs, inviteAs <= ROLE.MODERATOR);
}

function checkRoleBasedPermissions(actor: UserRow, invitedAs: number, requireAdmin: boolean): void {
  if (invitedAs === ROLE.OWNER && !isOwnerRole(actor.role)) throw mustBeOwner();
  if (requireAdmin && !isAdminRole(actor.role)) throw badRequest("Must be an organization administrator");
}

/**
 * Zulip's access_streams_for_invite: each channel the actor may see, and each either a
 * default channel or one the actor may add subscribers to.
 */
async function accessChannelsForInvite(
  app: App,
  tx: Tx,
  actor: UserRow,
  streamIds: readonly number[],
): Promise<number[]> {
  const world = await loadWorld(app, tx.knex, actor.realm_id);
  const channels = streamIds.map((id) => {
    try {
      return accessChannelById(world, actor, id);
    } catch (err) {
      if (err instanceof JsonableError) throw badRequest(`Invalid channel ID ${id}. No invites were sent.`);
      throw err;
    }
  });
  const refused = channels.filter(
    (c) => !world.channels.defaultChannelIds.has(c.id) && !canAddSubscribers(world.realm, actor, c),
  );
  if (refused.length > 0)
    throw badRequest("You do not have permission to subscribe other users to channels.");
  return [...new Set(channels.map((c) => c.id))];
}

/**
 * Zulip's access_user_groups_for_invite: each a named, active, non-system group the actor
 * may add members to (access_user_group_for_update with can_add_members_group).
 */
function accessUserGroupsForInvite(
  realm: RealmSnapshot,
  actor: UserRow,
  groupIds: readonly number[],
): number[] {
  return [
    ...new Set(
      groupIds.map((id) => accessUserGroupForUpdate(realm, actor, id, ["can_add_members_group"]).row.id),
    ),
  ];
}

/** Zulip's get_invitee_emails_set: comma or newline separated, "Name <address>" allowed. */
export function parseInviteeEmails(raw: string): string[] {
  const emails = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(part);
    emails.add((named ? named[1]! : part).trim());
  }
  return [...emails];
}

export type InvitationFailure = [email: string, message: string, deactivated: boolean];

const invitationFailed = (message: string, errors: InvitationFailure[], sentInvitations: boolean) =>
  new JsonableError(message, "INVITATION_FAILED", 400, {
    errors,
    sent_invitations: sentInvitations,
    license_limit_reached: false,
    daily_limit_reached: false,
  });

/** Zulip's get_existing_user_errors: an address that already has an account here. */
function existingUserError(realm: RealmSnapshot, email: string): InvitationFailure | null {
  const holder = realm.userByEmail(email);
  if (!holder) return null;
  if (!bool(holder.is_active)) return [email, "Account has been deactivated.", true];
  return [email, "Already has an account.", false];
}

/** Who hears of a change to invitations: the administrators and the invitation's referrer. */
function notifyInvitesChanged(realm: RealmSnapshot, tx: Tx, referrerId: number | null): void {
  const ids = new Set(
    [...realm.users].filter((u) => bool(u.is_active) && isAdminRole(u.role)).map((u) => u.id),
  );
  if (referrerId !== null) ids.add(referrerId);
  tx.sendEventOnCommit(realm.id, invitesChangedEvent(), ids);
}

/** The invitation email (Zulip's invitation template), and its reminder when it lasts long enough. */
async function queueInvitationEmails(
  app: App,
  tx: Tx,
  realm: RealmSnapshot,
  referrer: UserRow,
  email: string,
  link: string,
  expiresAt: number | null,
): Promise<void> {
  const serverUrl = realmUrl(app.config);
  const realmName = realm.realm.name;
  await queueEmails(app, tx, [
    {
      realmId: realm.id,
      to: email,
      content: composeEmail({
        realmName,
        serverUrl,
        subject: `${referrer.full_name} has invited you to join ${realmName}`,
        paragraphs: [
          "Hi there,",
          `${referrer.full_name} (${referrer.delivery_email}) wants you to join them on ${realmName}.`,
          "To get started, click the link below.",
        ],
        action: { label: "Join", url: link },
      }),
    },
  ]);
  if (expiresAt === null || expiresAt - tx.now < REMINDER_MIN_LIFETIME_SECS) return;
  await queueEmails(app, tx, [
    {
      realmId: realm.id,
      to: email,
      sendAt: expiresAt - REMINDER_BEFORE_EXPIRY_SECS,
      content: composeEmail({
        realmName,
        serverUrl,
        subject: `Reminder: Join ${referrer.full_name} at ${realmName}`,
        paragraphs: [
          "Hi again,",
          `This is a friendly reminder that ${referrer.full_name} (${referrer.delivery_email}) wants you to join them on ${realmName}.`,
          "To get started, click the link below. The link expires in two days.",
        ],
        action: { label: "Join", url: link },
      }),
    },
  ]);
}

/** Unsent reminders of an invitation (Zulip's clear_scheduled_invitation_emails). */
async function clearInvitationReminders(tx: Tx, realmId: number, email: string): Promise<void> {
  await tx
    .knex("emails")
    .where({ realm_id: realmId, to_address: email, state: "queued" })
    .where("subject", "like", "Reminder: Join %")
    .delete();
}

const expiryOf = (tx: Tx, minutes: number | null) => (minutes === null ? null : tx.now + minutes * 60);

/** Creates one invitation row and its confirmation; returns the link's token. */
async function doCreateInvitation(
  tx: Tx,
  actor: UserRow,
  terms: InvitationTerms,
  email: string | null,
  streamIds: readonly number[],
  groupIds: readonly number[],
): Promise<{ id: number; token: string; expiresAt: number | null }> {
  const id = await insertReturningId(tx.knex, "invitations", {
    realm_id: actor.realm_id,
    referred_by: actor.id,
    is_multiuse: email === null,
    email,
    invited_as: terms.inviteAs,
    stream_ids: JSON.stringify(streamIds),
    group_ids: JSON.stringify(groupIds),
    include_realm_default_subscriptions: terms.includeRealmDefaultSubscriptions,
    notify_referrer_on_join: terms.notifyReferrerOnJoin,
    created_at: tx.now,
  });
  const expiresAt = expiryOf(tx, terms.expiresInMinutes);
  const { token } = await createConfirmation(tx, {
    realmId: actor.realm_id,
    kind: email === null ? "multiuse_invitation" : "invitation",
    objectId: id,
    email,
    expiresAt,
  });
  if (email === null) await tx.knex("invitations").where({ id }).update({ link_token: token });
  return { id, token, expiresAt };
}

export interface SentInvitation {
  email: string;
  link: string;
  expiresAt: number | null;
}

/**
 * POST /invites (Zulip's invite_users_backend and do_invite_users): one invitation and
 * one email per address; addresses that already have an account are skipped and named
 * in an INVITATION_FAILED error after the others were invited.
 */
export async function checkInviteUsers(
  app: App,
  actor: UserRow,
  rawEmails: string,
  terms: InvitationTerms,
): Promise<SentInvitation[]> {
  const { sent, skipped } = await checkInviteUsersSkipping(app, actor, rawEmails, terms);
  if (skipped.length > 0) {
    throw invitationFailed(
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. " +
        "We did send invitations to everyone else!",
      skipped,
      true,
    );
  }
  return sent;
}

/**
 * The invitations of checkInviteUsers, returning their links (the CLI prints them) and the
 * addresses skipped rather than refusing after the fact.
 */
export async function checkInviteUsersSkipping(
  app: App,
  actor: UserRow,
  rawEmails: string,
  terms: InvitationTerms,
): Promise<{ sent: SentInvitation[]; skipped: InvitationFailure[] }> {
  return app.db.transaction(async (tx) => {
    const realm = await app.realms.get(tx.knex, actor.realm_id);
    checkMayInvite(realm, actor, "can_invite_users_group", terms.inviteAs);
    if (rawEmails === "") throw badRequest("You must specify at least one email address.");
    const emails = parseInviteeEmails(rawEmails);
    const streamIds = await accessChannelsForInvite(app, tx, actor, terms.streamIds);
    const groupIds = accessUserGroupsForInvite(realm, actor, terms.groupIds);
    // Zulip's INVITES_MIN_USER_AGE_DAYS: in an open realm, nobody joins to send spam invitations.
    if (
      !bool(realm.realm.invite_required) &&
      !isAdminRole(actor.role) &&
      Number(actor.date_joined) > tx.now - INVITES_MIN_USER_AGE_SECS
    ) {
      throw invitationFailed(
        "Your account is too new to send invites for this organization. " +
          "Ask an organization admin, or a more experienced user.",
        [],
        false,
      );
    }
    const domainRule = await loadEmailDomainRule(tx.knex, realm.realm);
    const invalid: InvitationFailure[] = [];
    const skipped: InvitationFailure[] = [];
    const good: string[] = [];
    for (const email of emails) {
      if (email === "") continue;
      if (!isValidEmail(email)) {
        invalid.push([email, "Invalid address.", false]);
        continue;
      }
      const refusal = domainRule(email);
      if (refusal) {
        invalid.push([email, EMAIL_DOMAIN_ERRORS[refusal], false]);
        continue;
      }
      const existing = existingUserError(realm, email);
      if (existing) skipped.push(existing);
      else good.push(email);
    }
    if (invalid.length > 0) {
      throw invitationFailed(
        "Some emails did not validate, so we didn't send any invitations.",
        [...invalid, ...skipped],
        false,
      );
    }
    if (skipped.length > 0 && skipped.length === emails.length) {
      throw invitationFailed("We weren't able to invite anyone.", skipped, false);
    }
    const sent: SentInvitation[] = [];
    for (const email of good) {
      const { token, expiresAt } = await doCreateInvitation(tx, actor, terms, email, streamIds, groupIds);
      const link = joinLink(app, token);
      await clearInvitationReminders(tx, realm.id, email);
      await queueInvitationEmails(app, tx, realm, actor, email, link, expiresAt);
      sent.push({ email, link, expiresAt });
    }
    notifyInvitesChanged(realm, tx, actor.id);
    return { sent, skipped };
  });
}

/** POST /invites/multiuse: a reusable link (Zulip's do_create_multiuse_invite_link). */
export async function checkCreateMultiuseInvite(
  app: App,
  actor: UserRow,
  terms: InvitationTerms,
): Promise<{ link: string; expiresAt: number | null }> {
  return app.db.transaction(async (tx) => {
    const realm = await app.realms.get(tx.knex, actor.realm_id);
    checkMayInvite(realm, actor, "create_multiuse_invite_group", terms.inviteAs);
    const streamIds = await accessChannelsForInvite(app, tx, actor, terms.streamIds);
    const groupIds = accessUserGroupsForInvite(realm, actor, terms.groupIds);
    const { token, expiresAt } = await doCreateInvitation(tx, actor, terms, null, streamIds, groupIds);
    notifyInvitesChanged(realm, tx, actor.id);
    return { link: joinLink(app, token), expiresAt };
  });
}

const noSuchInvitation = () => badRequest("No such invitation");

/** A row joined with its confirmation, as the queries below read it. */
type InvitationWithConfirmation = InvitationRow & Pick<ConfirmationRow, "expires_at" | "used_at">;

function invitationsQuery(tx: Tx | App, realmId: number) {
  return tx.knex
    .from("invitations as i")
    .join("confirmations as c", function () {
      this.on("c.object_id", "=", "i.id").andOn("c.realm_id", "=", "i.realm_id");
    })
    .whereIn("c.kind", ["invitation", "multiuse_invitation"])
    .where("i.realm_id", realmId)
    .select<InvitationWithConfirmation[]>("i.*", "c.expires_at", "c.used_at");
}

/**
 * Zulip's access_invite_by_id / access_multiuse_invite_by_id: an invitation of the
 * actor's realm, the actor's own or one an administrator manages (owners' for owners).
 */
async function accessInvitation(
  tx: Tx,
  actor: UserRow,
  id: number,
  multiuse: boolean,
): Promise<InvitationWithConfirmation> {
  if (isGuestRole(actor.role)) throw notAllowedForGuests();
  if (bool(actor.is_bot)) throw botsNotAllowed();
  // The newest confirmation: a resent invitation's earlier ones are revoked.
  const row = await invitationsQuery(tx, actor.realm_id).where("i.id", id).orderBy("c.id", "desc").first();
  if (!row || bool(row.is_multiuse) !== multiuse) throw noSuchInvitation();
  // An email invitation that was accepted or revoked is gone, as Zulip deletes it.
  if (!multiuse && (row.revoked_at !== null || row.used_at !== null)) throw noSuchInvitation();
  if (row.referred_by !== actor.id) checkRoleBasedPermissions(actor, row.invited_as, true);
  if (multiuse && row.revoked_at !== null) throw badRequest("Invitation has already been revoked");
  return row;
}

/** DELETE /invites/{id} and DELETE /invites/multiuse/{id}. */
export async function checkRevokeInvite(
  app: App,
  actor: UserRow,
  id: number,
  multiuse: boolean,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const row = await accessInvitation(tx, actor, id, multiuse);
    await tx.knex("invitations").where({ id }).update({ revoked_at: tx.now });
    await revokeConfirmations(tx, actor.realm_id, multiuse ? "multiuse_invitation" : "invitation", id);
    if (row.email !== null) await clearInvitationReminders(tx, actor.realm_id, row.email);
    notifyInvitesChanged(await app.realms.get(tx.knex, actor.realm_id), tx, row.referred_by);
  });
}

/**
 * POST /invites/{id}/resend: the invitation email again, with a new link (only hashes of
 * tokens are kept) that keeps the invitation's expiry; the old link stops working.
 */
export async function checkResendInvite(app: App, actor: UserRow, id: number): Promise<SentInvitation> {
  return app.db.transaction(async (tx) => {
    const row = await accessInvitation(tx, actor, id, false);
    const realm = await app.realms.get(tx.knex, actor.realm_id);
    const referrer = realm.user(row.referred_by) ?? actor;
    await revokeConfirmations(tx, actor.realm_id, "invitation", id);
    const expiresAt = row.expires_at === null ? null : Number(row.expires_at);
    const { token } = await createConfirmation(tx, {
      realmId: actor.realm_id,
      kind: "invitation",
      objectId: id,
      email: row.email,
      expiresAt,
    });
    const link = joinLink(app, token);
    await clearInvitationReminders(tx, realm.id, row.email!);
    await queueInvitationEmails(app, tx, realm, referrer, row.email!, link, expiresAt);
    notifyInvitesChanged(realm, tx, row.referred_by);
    return { email: row.email!, link, expiresAt };
  });
}

/**
 * GET /invites (Zulip's do_get_invites_controlled_by_user): the unexpired, unused,
 * unrevoked invitations the user manages: all of them for administrators, their own
 * for others.
 */
export async function listInvites(app: App, actor: UserRow): Promise<WireInvite[]> {
  if (isGuestRole(actor.role)) throw notAllowedForGuests();
  if (bool(actor.is_bot)) throw botsNotAllowed();
  const now = nowSeconds(app.clock);
  const query = invitationsQuery(app, actor.realm_id)
    .whereNull("i.revoked_at")
    .where((q) => void q.whereNull("c.expires_at").orWhere("c.expires_at", ">", now))
    .whereNull("c.revoked_at")
    .where((q) => void q.where("i.is_multiuse", true).orWhereNull("c.used_at"))
    .orderBy("i.id");
  if (!isAdminRole(actor.role)) void query.where("i.referred_by", actor.id);
  const rows = await query;
  return rows.map((row) => presentInvite(row, row.link_token ? joinLink(app, row.link_token) : null));
}
