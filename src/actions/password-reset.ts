import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest, JsonableError } from "../errors.js";
import { composeEmail } from "../lib/email-content.js";
import { hashPassword, PASSWORD_MAX_LENGTH } from "../lib/passwords.js";
import { validatePasswordStrength } from "../lib/user-validation.js";
import type { ConfirmationState } from "../lib/confirmation-tokens.js";
import type { RealmSnapshot } from "../world/realm.js";
import {
  createConfirmation,
  findConfirmation,
  revokeConfirmations,
  useConfirmation,
  type ConfirmationRow,
} from "./confirmations.js";
import { queueEmails } from "./email-queue.js";
import { doSetPasswordHash } from "./user-password.js";

/**
 * Password reset (Zulip's password_reset views): a single-use link, valid for an hour,
 * mailed to an active human user of the realm (or printed by `chatd user reset-password`).
 * Asking never tells whether an account exists. A new link revokes the user's older ones;
 * setting a password through it ends the user's web sessions, as any password change.
 */

/** Zulip: PASSWORD_RESET_TIMEOUT, one hour. */
export const PASSWORD_RESET_LIFETIME_SECS = 3600;

/** The page a reset link opens. The token is in the query, never the path (the request log keeps paths). */
export const PASSWORD_RESET_CONFIRM_PATH = "/accounts/password/reset/confirm/";

export const passwordResetLink = (app: App, token: string) =>
  `${realmUrl(app.config)}${PASSWORD_RESET_CONFIRM_PATH}?token=${encodeURIComponent(token)}`;

/** Whom a reset may be for: active people, never bots (they have no password). */
const canReset = (user: UserRow | undefined): user is UserRow =>
  user !== undefined && bool(user.is_active) && !bool(user.is_bot);

/** A new reset link for the user (older unused ones revoked), in the caller's transaction. */
export async function doCreatePasswordReset(app: App, tx: Tx, user: UserRow): Promise<string> {
  await revokeConfirmations(tx, user.realm_id, "password_reset", user.id);
  const { token } = await createConfirmation(tx, {
    realmId: user.realm_id,
    kind: "password_reset",
    objectId: user.id,
    email: user.delivery_email,
    expiresAt: tx.now + PASSWORD_RESET_LIFETIME_SECS,
  });
  return passwordResetLink(app, token);
}

/**
 * The reset form's submission: mails a link if `email` is an active person's real address
 * in the realm, and does nothing else otherwise; the caller answers the same either way.
 * Rate-limited per address as logins are, so nobody floods a mailbox.
 */
export async function checkRequestPasswordReset(
  app: App,
  realm: RealmSnapshot,
  email: string,
): Promise<void> {
  const address = email.trim();
  app.rateLimits.enforce("authenticate_by_username", `password_reset:${address.toLowerCase()}`);
  // Fresh from the database: an admin command may just have created the user.
  const row = await app
    .knex<UserRow>("users")
    .where({ realm_id: realm.id })
    .whereRaw("lower(delivery_email) = ?", [address.toLowerCase()])
    .first();
  if (!canReset(row) || bool(realm.realm.deactivated)) return;
  await app.db.transaction(async (tx) => {
    const url = await doCreatePasswordReset(app, tx, row);
    const content = composeEmail({
      realmName: realm.realm.name,
      serverUrl: realmUrl(app.config),
      subject: `Reset your password for ${realm.realm.name}`,
      paragraphs: [
        `Somebody (hopefully you) asked to reset the password of ${row.delivery_email} in ${realm.realm.name}.`,
        "The link below sets a new password. It works once, for one hour.",
      ],
      action: { label: "Reset password", url },
      footer: "If you did not ask for this, ignore this email: your password stays as it is.",
    });
    await queueEmails(app, tx, [{ realmId: realm.id, to: row.delivery_email, content }]);
  });
}

/** Where a reset link stands, and whose it is, for the page it opens. */
export async function passwordResetLinkState(
  app: App,
  token: string,
): Promise<{ state: ConfirmationState; row: ConfirmationRow | undefined }> {
  const now = Math.floor(app.clock.nowMs() / 1000);
  const found = await findConfirmation(app.knex, token, ["password_reset"], now);
  if (found.state !== "valid") return found;
  // A user deactivated since the link was sent has nothing to reset.
  const realm = await app.realms.get(app.knex, found.row!.realm_id);
  return canReset(realm.user(found.row!.object_id ?? 0)) ? found : { state: "unknown", row: undefined };
}

/** A link that may no longer be acted on: the page says why, and shows no form. */
export class ResetLinkInvalid extends Error {
  constructor(readonly state: ConfirmationState) {
    super(`password reset link ${state}`);
  }
}

/**
 * Sets the password through a reset link: the link is used in the same transaction (so it
 * works once, even for two submissions at the same moment) and the user's sessions end.
 * Throws a JsonableError for a weak password, ResetLinkInvalid for a link no longer valid.
 */
export async function checkResetPassword(app: App, token: string, password: string): Promise<UserRow> {
  validatePasswordStrength(password);
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw badRequest(`The password is too long: at most ${PASSWORD_MAX_LENGTH} characters.`);
  }
  const { state, row } = await passwordResetLinkState(app, token);
  if (state !== "valid" || !row) throw new ResetLinkInvalid(state);
  const hash = await hashPassword(password, app.scrypt);
  return app.db.transaction(async (tx) => {
    const realm = await app.realms.get(tx.knex, row.realm_id);
    const user = realm.user(row.object_id ?? 0);
    if (!canReset(user)) throw new ResetLinkInvalid("unknown");
    if (!(await useConfirmation(tx, row.id))) throw new ResetLinkInvalid("used");
    await doSetPasswordHash(app, tx, user, hash);
    return user;
  });
}

export const isResetError = (err: unknown): err is JsonableError | ResetLinkInvalid =>
  err instanceof JsonableError || err instanceof ResetLinkInvalid;
