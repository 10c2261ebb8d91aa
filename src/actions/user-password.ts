import type { App } from "../app.js";
import { bool } from "../db/rows.js";
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
    await tx.knex("users").where({ id: target.id }).update({ password_hash: hash });
    await doEndUserSessions(app, tx, target.id);
    tx.afterCommit(() => app.realms.invalidate(realmId));
  });
}
