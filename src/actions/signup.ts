import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { JsonableError, badRequest } from "../errors.js";
import type { ConfirmationState } from "../lib/confirmation-tokens.js";
import { composeEmail } from "../lib/email-content.js";
import { emailEnabled } from "../lib/email-settings.js";
import { isValidEmail } from "../lib/emails.js";
import { hashPassword, isStrongPassword } from "../lib/passwords.js";
import { loadEmailDomainRule, signupDomainError } from "../lib/realm-domains.js";
import { validateFullName, validateNameAvailable } from "../lib/user-validation.js";
import { openSignUpAllowed } from "../permissions/open-signup.js";
import { invitesChangedEvent } from "../presenters/events/invites.js";
import type { InvitationRow } from "../presenters/invites.js";
import type { RealmSnapshot } from "../world/realm.js";
import { ROLE, isAdminRole, type Role } from "../world/roles.js";
import { silentMention, sendBotDirectMessage } from "./channel-notices.js";
import {
  createConfirmation,
  findConfirmation,
  useConfirmation,
  type ConfirmationRow,
} from "./confirmations.js";
import { queueEmails } from "./email-queue.js";
import { joinLink } from "./invites.js";
import { doCreateSession } from "./sessions.js";
import { doCreateUser } from "./user-create.js";
import { doAddUserGroupMembers } from "./user-groups.js";
import { doSendInitialDirectMessages } from "./welcome-bot.js";

/** Zulip's CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS: a sign-up confirmation lasts a day. */
const REGISTRATION_VALIDITY_SECS = 24 * 3600;

/** The links a /join/ page follows: an email invitation, a reusable link, a confirmed address. */
const JOIN_KINDS = ["invitation", "multiuse_invitation", "registration"] as const;

/** What a /join/<token>/ link stands for, when it can still be acted on. */
export interface JoinLink {
  confirmation: ConfirmationRow;
  /** null: open sign-up (a registration link mailed from /register/, no invitation). */
  invitation: InvitationRow | null;
  realmId: number;
  realmName: string;
  /** The address the account gets, fixed by the link; null: the form asks (a reusable link). */
  email: string | null;
}

export type JoinLookup = { state: "valid"; link: JoinLink } | { state: Exclude<ConfirmationState, "valid"> };

/** The link's confirmation and invitation, or why it cannot be followed. */
export async function findJoinLink(app: App, token: string): Promise<JoinLookup> {
  const now = Math.floor(app.clock.nowMs() / 1000);
  const { row, state } = await findConfirmation(app.knex, token, JOIN_KINDS, now);
  if (state !== "valid") return { state };
  let invitation: InvitationRow | null = null;
  if (row!.kind !== "registration" || row!.object_id !== null) {
    invitation =
      (await app
        .knex<InvitationRow>("invitations")
        .where({ id: row!.object_id ?? 0 })
        .first()) ?? null;
    if (!invitation || invitation.realm_id !== row!.realm_id) return { state: "unknown" };
    if (invitation.revoked_at !== null) return { state: "revoked" };
  }
  const realm = await app.realms.get(app.knex, row!.realm_id);
  if (bool(realm.realm.deactivated)) return { state: "unknown" };
  return {
    state: "valid",
    link: {
      confirmation: row!,
      invitation,
      realmId: realm.id,
      realmName: realm.realm.name,
      email: row!.kind === "multiuse_invitation" ? null : row!.email,
    },
  };
}

export interface SignUpForm {
  email: string;
  fullName: string;
  password: string;
}

export type SignUpResult =
  | { kind: "created"; user: UserRow; sessionToken: string }
  | { kind: "confirmation_sent"; email: string }
  | { kind: "gone" };

/** Sign-up without an invitation where the realm requires one (the pages say it plainly). */
export class InvitationRequired extends JsonableError {
  constructor() {
    super("You need an invitation to join this organization.", "BAD_REQUEST", 403);
  }
}

/**
 * The sign-up form's POST on a /join/ link: with a reusable link and email on, a
 * confirmation link to the address (Zulip's confirm-your-email step); otherwise the
 * account, at once, with the invitation's role, channels and groups, and a web session.
 * Bad input throws (the page shows it).
 */
export async function checkSignUp(app: App, link: JoinLink, form: SignUpForm): Promise<SignUpResult> {
  const realm = await app.realms.get(app.knex, link.realmId);
  if (link.invitation === null && !openSignUpAllowed(realm)) throw new InvitationRequired();
  const email = (link.email ?? form.email).trim();
  await validateSignUpEmail(app, realm, email);
  if (link.confirmation.kind === "multiuse_invitation" && emailEnabled(app.config)) {
    return startRegistration(app, realm, email, link.invitation!.id);
  }
  return createAccount(app, realm, email, form, link);
}

/**
 * POST /register/ (Zulip's accounts_home) where the realm does not require invitations:
 * with email on, a confirmation link to the address; otherwise the account at once, as a
 * member in the default channels.
 */
export async function checkOpenSignUp(app: App, realmId: number, form: SignUpForm): Promise<SignUpResult> {
  const realm = await app.realms.get(app.knex, realmId);
  if (!openSignUpAllowed(realm)) throw new InvitationRequired();
  const email = form.email.trim();
  await validateSignUpEmail(app, realm, email);
  if (emailEnabled(app.config)) return startRegistration(app, realm, email, null);
  return createAccount(app, realm, email, form, null);
}

/** The address checks of Zulip's HomepageForm: a valid address the realm's domains allow. */
async function validateSignUpEmail(app: App, realm: RealmSnapshot, email: string): Promise<void> {
  if (!isValidEmail(email)) throw badRequest("Please enter a valid email address.");
  const refusal = (await loadEmailDomainRule(app.knex, realm.realm))(email);
  if (refusal) throw badRequest(signupDomainError(refusal, email));
}

/**
 * Mails the link that confirms the address. The answer is the same whether or not the
 * address has an account (its owner is told by email instead), so the form tells nobody
 * which addresses have accounts.
 */
async function startRegistration(
  app: App,
  realm: RealmSnapshot,
  email: string,
  invitationId: number | null,
): Promise<SignUpResult> {
  // Each request mails someone: limited per address as password resets are.
  app.rateLimits.enforce("authenticate_by_username", `signup:${email.toLowerCase()}`);
  await app.db.transaction(async (tx) => {
    const now = await app.realms.get(tx.knex, realm.id);
    const holder = now.userByEmail(email);
    if (holder) {
      if (bool(holder.is_active)) await doSendAccountExists(app, tx, now, email);
      return;
    }
    await doSendRegistrationLink(app, tx, now, email, invitationId);
  });
  return { kind: "confirmation_sent", email };
}

/** The account, its channels and groups, the referrer's notice and a web session. */
async function createAccount(
  app: App,
  before: RealmSnapshot,
  email: string,
  form: SignUpForm,
  link: JoinLink | null,
): Promise<SignUpResult> {
  if (before.userByEmail(email)) throw badRequest("Already has an account.");
  const fullName = validateFullName(form.fullName);
  validateNameAvailable(before, fullName);
  if (!isStrongPassword(form.password)) throw badRequest("The password is too weak.");
  const passwordHash = await hashPassword(form.password, app.scrypt);
  const realmId = before.id;
  const invitation = link?.invitation ?? null;
  return app.db.transaction(async (tx) => {
    const realm = await app.realms.get(tx.knex, realmId);
    // Checked again where it is written: the realm may have closed meanwhile.
    if (invitation === null && !openSignUpAllowed(realm)) throw new InvitationRequired();
    // A reusable link stays valid; any other is used once, by the first to get here.
    if (
      link &&
      link.confirmation.kind !== "multiuse_invitation" &&
      !(await useConfirmation(tx, link.confirmation.id))
    ) {
      return { kind: "gone" as const };
    }
    if (realm.userByEmail(email)) throw badRequest("Already has an account.");
    validateNameAvailable(realm, fullName);
    const user = await doCreateUser(app, tx, {
      realmId,
      email,
      fullName,
      passwordHash,
      role: invitation ? (invitation.invited_as as Role) : ROLE.MEMBER,
      defaultChannels: invitation ? bool(invitation.include_realm_default_subscriptions) : true,
      channelIds: invitation ? (JSON.parse(invitation.stream_ids) as number[]) : [],
    });
    if (invitation) await doJoinInvitationGroups(app, tx, user, JSON.parse(invitation.group_ids) as number[]);
    const revokedReferrers = await doRevokeOtherInvitations(tx, realmId, email, invitation?.id ?? null);
    const referrer = invitation ? realm.user(invitation.referred_by) : undefined;
    if (invitation && bool(invitation.notify_referrer_on_join) && referrer && bool(referrer.is_active)) {
      // Zulip's wording (it names Zulip, as its clients expect), from the Notification Bot.
      await sendBotDirectMessage(
        app,
        tx,
        referrer,
        `${silentMention(user)} accepted your invitation to join Zulip!`,
      );
    }
    const told = new Set(revokedReferrers);
    if (invitation) told.add(invitation.referred_by);
    if (told.size > 0) {
      const admins = [...realm.users]
        .filter((u) => bool(u.is_active) && isAdminRole(u.role))
        .map((u) => u.id);
      tx.sendEventOnCommit(realmId, invitesChangedEvent(), new Set([...admins, ...told]));
    }
    await doSendInitialDirectMessages(app, tx, user);
    const sessionToken = await doCreateSession(app, tx, user.id);
    return { kind: "created" as const, user, sessionToken };
  });
}

/**
 * The invitation's user groups (Zulip's bulk_add_members_to_user_groups on sign-up), each
 * with its event; a group deleted since is skipped.
 */
async function doJoinInvitationGroups(app: App, tx: Tx, user: UserRow, groupIds: number[]): Promise<void> {
  if (groupIds.length === 0) return;
  const snapshot = await app.realms.get(tx.knex, user.realm_id);
  for (const id of groupIds) {
    const node = snapshot.groups.get(id);
    if (!node || node.row.name === null || bool(node.row.is_system_group)) continue;
    if (node.members.includes(user.id)) continue;
    await doAddUserGroupMembers(app, tx, snapshot, node, [user.id]);
  }
}

/**
 * Other pending invitations of the address are void once it has an account (as Zulip);
 * returns their referrers, who hear of the change.
 */
async function doRevokeOtherInvitations(
  tx: Tx,
  realmId: number,
  email: string,
  exceptId: number | null,
): Promise<number[]> {
  const rows = await tx
    .knex("invitations")
    .where({ realm_id: realmId, is_multiuse: false })
    .whereRaw("lower(email) = ?", [email.toLowerCase()])
    .whereNot("id", exceptId ?? 0)
    .whereNull("revoked_at")
    .select<Array<{ id: number; referred_by: number }>>("id", "referred_by");
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  await tx.knex("invitations").whereIn("id", ids).update({ revoked_at: tx.now });
  await tx
    .knex("confirmations")
    .where({ realm_id: realmId, kind: "invitation", used_at: null, revoked_at: null })
    .whereIn("object_id", ids)
    .update({ revoked_at: tx.now });
  return rows.map((r) => r.referred_by);
}

/** Zulip's confirm_registration email: the link that makes the account. */
async function doSendRegistrationLink(
  app: App,
  tx: Tx,
  realm: RealmSnapshot,
  email: string,
  invitationId: number | null,
): Promise<void> {
  const { token } = await createConfirmation(tx, {
    realmId: realm.id,
    kind: "registration",
    objectId: invitationId,
    email,
    expiresAt: tx.now + REGISTRATION_VALIDITY_SECS,
  });
  const realmName = realm.realm.name;
  await queueEmails(app, tx, [
    {
      realmId: realm.id,
      to: email,
      content: composeEmail({
        realmName,
        serverUrl: realmUrl(app.config),
        subject: `Activate your ${realmName} account`,
        paragraphs: [
          `You recently signed up to join ${realmName}. Click the link below to finish creating your account.`,
          "The link expires in one day.",
        ],
        action: { label: "Activate account", url: joinLink(app, token) },
        footer: "If you did not sign up, you can ignore this email.",
      }),
    },
  ]);
}

/** What the owner of an address that already has an account gets instead of a link. */
async function doSendAccountExists(app: App, tx: Tx, realm: RealmSnapshot, email: string): Promise<void> {
  const realmName = realm.realm.name;
  const serverUrl = realmUrl(app.config);
  await queueEmails(app, tx, [
    {
      realmId: realm.id,
      to: email,
      content: composeEmail({
        realmName,
        serverUrl,
        subject: `You already have an account in ${realmName}`,
        paragraphs: [
          `Somebody (hopefully you) tried to sign up to ${realmName} with this address, which already has an account.`,
          "Log in with it below. If you forgot your password, the login page lets you reset it.",
        ],
        action: { label: "Log in", url: `${serverUrl}/login/` },
        footer: "If you did not try to sign up, you can ignore this email.",
      }),
    },
  ]);
}
