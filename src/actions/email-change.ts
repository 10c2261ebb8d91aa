import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { composeEmail } from "../lib/email-content.js";
import { isValidEmail } from "../lib/emails.js";
import { EMAIL_DOMAIN_ERRORS, loadEmailDomainRule, type EmailDomainRule } from "../lib/realm-domains.js";
import type { ConfirmationState } from "../lib/confirmation-tokens.js";
import type { RealmSnapshot } from "../world/realm.js";
import { isAdminRole } from "../world/roles.js";
import {
  createConfirmation,
  findConfirmation,
  revokeConfirmations,
  useConfirmation,
} from "./confirmations.js";
import { queueEmails } from "./email-queue.js";
import { doChangeDeliveryEmail } from "./user-email.js";
import { systemBotEmails } from "./system-bots.js";

/**
 * A user's own email change (PATCH /settings `email`), as Zulip's
 * do_start_email_change_process and confirm_email_change: the request mails a link to
 * the new address, and following it makes the change (with its events), after the same
 * checks again; the old address is told. A newer request revokes the older link.
 */

/** Zulip: CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS, one day. */
export const EMAIL_CHANGE_LIFETIME_SECS = 86_400;

/** The token is in the query, never the path (the request log keeps paths). */
export const EMAIL_CHANGE_CONFIRM_PATH = "/accounts/confirm_new_email/";

/** The system bots' addresses, existing or to come, are not for people. */
function isSystemBotEmail(app: App, realm: RealmSnapshot, email: string): boolean {
  const key = email.toLowerCase();
  if (realm.systemBots.some((bot) => bot.email.toLowerCase() === key)) return true;
  return systemBotEmails(app).includes(key);
}

/**
 * Zulip's checks of a user's new address (validate_email_change_request), with its
 * messages; throws a 400. `domainRule` is the realm's (lib/realm-domains.ts).
 */
export function validateOwnEmailChange(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  address: string,
  domainRule: EmailDomainRule,
): void {
  if (bool(realm.realm.email_changes_disabled) && !isAdminRole(user.role)) {
    throw badRequest("Email address changes are disabled in this organization.");
  }
  if (!isValidEmail(address)) throw badRequest("Invalid address.");
  const refusal = domainRule(address);
  if (refusal) throw badRequest(EMAIL_DOMAIN_ERRORS[refusal]);
  if (isSystemBotEmail(app, realm, address)) throw badRequest("Reserved for system bots.");
  const holder = realm.userByEmail(address);
  if (holder && holder.id !== user.id) {
    throw badRequest(bool(holder.is_active) ? "Already has an account." : "Account has been deactivated.");
  }
}

/** Mails the confirmation link to the new address, in the caller's transaction. */
export async function doStartEmailChange(
  app: App,
  tx: Tx,
  realm: RealmSnapshot,
  user: UserRow,
  address: string,
): Promise<void> {
  await revokeConfirmations(tx, realm.id, "email_change", user.id);
  const { token } = await createConfirmation(tx, {
    realmId: realm.id,
    kind: "email_change",
    objectId: user.id,
    email: address,
    data: { old_email: user.delivery_email },
    expiresAt: tx.now + EMAIL_CHANGE_LIFETIME_SECS,
  });
  const serverUrl = realmUrl(app.config);
  const url = `${serverUrl}${EMAIL_CHANGE_CONFIRM_PATH}?token=${encodeURIComponent(token)}`;
  const content = composeEmail({
    realmName: realm.realm.name,
    serverUrl,
    subject: `Verify your new email address for ${realm.realm.name}`,
    paragraphs: [
      `Somebody (hopefully you) asked to change the email address of ${user.full_name}'s account in ` +
        `${realm.realm.name} from ${user.delivery_email} to ${address}.`,
      "Follow the link below to confirm the new address. It works once, for one day.",
    ],
    action: { label: "Confirm email change", url },
    footer: "If you did not ask for this, ignore this email: nothing changes.",
  });
  await queueEmails(app, tx, [{ realmId: realm.id, to: address, content }]);
}

/**
 * Follows a confirmation link: the change is made (once; the checks again, as things may
 * have changed in the meantime) and the old address told. Returns the link's state and,
 * when it was valid, the new address; a refused change throws a 400.
 */
export async function checkConfirmEmailChange(
  app: App,
  token: string,
): Promise<{ state: ConfirmationState; email?: string }> {
  return app.db.transaction(async (tx) => {
    const { row, state } = await findConfirmation(tx.knex, token, ["email_change"], tx.now);
    if (state !== "valid" || !row?.email) return { state };
    const realm = await app.realms.get(tx.knex, row.realm_id);
    const user = realm.user(row.object_id ?? 0);
    if (!user || !bool(user.is_active)) return { state: "unknown" };
    validateOwnEmailChange(app, realm, user, row.email, await loadEmailDomainRule(tx.knex, realm.realm));
    if (!(await useConfirmation(tx, row.id))) return { state: "used" };
    const oldEmail = user.delivery_email;
    await doChangeDeliveryEmail(app, tx, user, row.email);
    const serverUrl = realmUrl(app.config);
    const content = composeEmail({
      realmName: realm.realm.name,
      serverUrl,
      subject: `Your email address for ${realm.realm.name} was changed`,
      paragraphs: [
        `The email address of your account in ${realm.realm.name} was changed from ${oldEmail} to ${row.email}.`,
        "If you did not make this change, contact your organization's administrators at once.",
      ],
    });
    await queueEmails(app, tx, [{ realmId: realm.id, to: oldEmail, content }]);
    return { state, email: row.email };
  });
}
