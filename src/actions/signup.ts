import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import type { ConfirmationState } from "../lib/confirmation-tokens.js";
import { composeEmail } from "../lib/email-content.js";
import { emailEnabled } from "../lib/email-settings.js";
import { isValidEmail } from "../lib/emails.js";
import { hashPassword, isStrongPassword } from "../lib/passwords.js";
import { validateFullName, validateNameAvailable } from "../lib/user-validation.js";
import { invitesChangedEvent } from "../presenters/events/invites.js";
import type { InvitationRow } from "../presenters/invites.js";
import { isAdminRole, type Role } from "../world/roles.js";
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
import { doSendInitialDirectMessages } from "./welcome-bot.js";

/** Zulip's CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS: a sign-up confirmation lasts a day. */
const REGISTRATION_VALIDITY_SECS = 24 * 3600;

/** The links a /join/ page follows: an email invitation, a reusable link, a confirmed address. */
const JOIN_KINDS = ["invitation", "multiuse_invitation", "registration"] as const;

/** What a /join/<token>/ link stands for, when it can still be acted on. */
export interface JoinLink {
  confirmation: ConfirmationRow;
  invitation: InvitationRow;
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
  const invitation = await app
    .knex<InvitationRow>("invitations")
    .where({ id: row!.object_id ?? 0 })
    .first();
  if (!invitation || invitation.realm_id !== row!.realm_id) return { state: "unknown" };
  if (invitation.revoked_at !== null) return { state: "revoked" };
  const realm = await app.realms.get(app.knex, invitation.realm_id);
  if (bool(realm.realm.deactivated)) return { state: "unknown" };
  return {
    state: "valid",
    link: {
      confirmation: row!,
      invitation,
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

/**
 * The sign-up form's POST: with a reusable link and email on, a confirmation link to the
 * address (Zulip's confirm-your-email step); otherwise the account, at once, with the
 * invitation's role and channels, and a web session. Bad input throws (the page shows it).
 */
export async function checkSignUp(app: App, link: JoinLink, form: SignUpForm): Promise<SignUpResult> {
  const email = (link.email ?? form.email).trim();
  if (!isValidEmail(email)) throw badRequest("Please enter a valid email address.");
  const realmId = link.invitation.realm_id;
  const before = await app.realms.get(app.knex, realmId);
  if (before.userByEmail(email)) throw badRequest("Already has an account.");
  if (link.confirmation.kind === "multiuse_invitation" && emailEnabled(app.config)) {
    await app.db.transaction((tx) => doSendRegistrationLink(app, tx, link, email));
    return { kind: "confirmation_sent", email };
  }
  const fullName = validateFullName(form.fullName);
  validateNameAvailable(before, fullName);
  if (!isStrongPassword(form.password)) throw badRequest("The password is too weak.");
  const passwordHash = await hashPassword(form.password, app.scrypt);
  return app.db.transaction(async (tx) => {
    // A reusable link stays valid; any other is used once, by the first to get here.
    if (
      link.confirmation.kind !== "multiuse_invitation" &&
      !(await useConfirmation(tx, link.confirmation.id))
    ) {
      return { kind: "gone" as const };
    }
    const realm = await app.realms.get(tx.knex, realmId);
    if (realm.userByEmail(email)) throw badRequest("Already has an account.");
    validateNameAvailable(realm, fullName);
    const { invitation } = link;
    const user = await doCreateUser(app, tx, {
      realmId,
      email,
      fullName,
      passwordHash,
      role: invitation.invited_as as Role,
      defaultChannels: bool(invitation.include_realm_default_subscriptions),
      channelIds: JSON.parse(invitation.stream_ids) as number[],
    });
    await doRevokeOtherInvitations(tx, realmId, email, invitation.id);
    const referrer = realm.user(invitation.referred_by);
    if (bool(invitation.notify_referrer_on_join) && referrer && bool(referrer.is_active)) {
      // Zulip's wording (it names Zulip, as its clients expect), from the Notification Bot.
      await sendBotDirectMessage(
        app,
        tx,
        referrer,
        `${silentMention(user)} accepted your invitation to join Zulip!`,
      );
    }
    const admins = [...realm.users].filter((u) => bool(u.is_active) && isAdminRole(u.role)).map((u) => u.id);
    tx.sendEventOnCommit(realmId, invitesChangedEvent(), new Set([...admins, invitation.referred_by]));
    await doSendInitialDirectMessages(app, tx, user);
    const sessionToken = await doCreateSession(app, tx, user.id);
    return { kind: "created" as const, user, sessionToken };
  });
}

/** Other pending invitations of the address are void once it has an account (as Zulip). */
async function doRevokeOtherInvitations(
  tx: Tx,
  realmId: number,
  email: string,
  exceptId: number,
): Promise<void> {
  const ids = await tx
    .knex("invitations")
    .where({ realm_id: realmId, is_multiuse: false })
    .whereRaw("lower(email) = ?", [email.toLowerCase()])
    .whereNot("id", exceptId)
    .whereNull("revoked_at")
    .pluck<number[]>("id");
  if (ids.length === 0) return;
  await tx.knex("invitations").whereIn("id", ids).update({ revoked_at: tx.now });
  await tx
    .knex("confirmations")
    .where({ realm_id: realmId, kind: "invitation", used_at: null, revoked_at: null })
    .whereIn("object_id", ids)
    .update({ revoked_at: tx.now });
}

/** Zulip's confirm_registration email: the link that makes the account. */
async function doSendRegistrationLink(app: App, tx: Tx, link: JoinLink, email: string): Promise<void> {
  const { token } = await createConfirmation(tx, {
    realmId: link.invitation.realm_id,
    kind: "registration",
    objectId: link.invitation.id,
    email,
    expiresAt: tx.now + REGISTRATION_VALIDITY_SECS,
  });
  const url = joinLink(app, token);
  await queueEmails(app, tx, [
    {
      realmId: link.invitation.realm_id,
      to: email,
      content: composeEmail({
        realmName: link.realmName,
        serverUrl: realmUrl(app.config),
        subject: `Activate your ${link.realmName} account`,
        paragraphs: [
          `You recently signed up to join ${link.realmName}. Click the link below to finish creating your account.`,
          "The link expires in one day.",
        ],
        action: { label: "Activate account", url },
        footer: "If you did not sign up, you can ignore this email.",
      }),
    },
  ]);
}
