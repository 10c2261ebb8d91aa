import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { accessUserById } from "../lib/access-users.js";
import { hashPassword } from "../lib/passwords.js";
import { validatePasswordStrength } from "../lib/user-validation.js";
import { doEndUserSessions } from "./sessions.js";
import { realmTransaction } from "./users.js";

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
  validatePasswordStrength(password);
  const hash = await hashPassword(password, app.scrypt);
  await realmTransaction(app, realmId, async (tx, snapshot) => {
    const target = accessUserById(snapshot, targetId);
    if (bool(target.is_bot)) throw badRequest("Bots cannot have a password.");
    await doSetPasswordHash(app, tx, target, hash);
  });
}

/**
 * What every password change does (the CLI's, a reset link's): the new hash, and the
 * user's web sessions end, so whoever knew the old password is out.
 */
export async function doSetPasswordHash(app: App, tx: Tx, user: UserRow, hash: string): Promise<void> {
  await tx.knex("users").where({ id: user.id }).update({ password_hash: hash });
  await doEndUserSessions(app, tx, user.id);
  tx.afterCommit(() => app.realms.invalidate(user.realm_id));
}
