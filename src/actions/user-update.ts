import { realmUserEvents } from "../presenters/events/users.js";
import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest, insufficientPermission, mustBeOwner } from "../errors.js";
import { accessUserById } from "../lib/access-users.js";
import { isValidEmail } from "../lib/emails.js";
import { activeUserIds } from "../lib/recipients.js";
import { validateEmailAvailable, validateFullName, validateNameAvailable } from "../lib/user-validation.js";
import type { Role } from "../world/roles.js";
import { sendBotUpdate } from "./bot-events.js";
import { doUpdateProfileData, validateProfileData, type ProfileDataEntry } from "./custom-profile-fields.js";
import { doChangeDeliveryEmail } from "./user-email.js";
import { validateRoleChange, doChangeUserRole } from "./user-role.js";
import { actorIsOwner, realmTransaction, type Actor } from "./users.js";

/** Renames a user or a bot, for the realm (and a bot's administrators). */
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
  await realmTransaction(app, realmId, async (tx, snapshot) => {
    const target = accessUserById(snapshot, targetId);
    if (input.newEmail !== undefined) {
      if (!actorIsOwner(actor)) throw mustBeOwner();
      if (actor !== "operator" && !bool(actor.can_change_user_emails)) throw insufficientPermission();
    }
    if (input.role !== undefined && validateRoleChange(snapshot, actor, target, input.role)) {
      await doChangeUserRole(app, tx, target, input.role);
    }
    // A blank name is ignored, as Zulip does; administrators are not bound by
    // name_changes_disabled.
    if (input.fullName !== undefined && input.fullName.trim() !== "" && input.fullName !== target.full_name) {
      const fullName = validateFullName(input.fullName);
      validateNameAvailable(snapshot, fullName, target.id);
      if (fullName !== target.full_name) await doChangeFullName(app, tx, target, fullName);
    }
    if (input.profileData !== undefined) {
      const change = await validateProfileData(tx, snapshot, true, input.profileData, { removeEmpty: true });
      await doUpdateProfileData(app, tx, target, change);
    }
    if (input.newEmail !== undefined) {
      const email = input.newEmail.trim();
      if (!isValidEmail(email)) throw badRequest("Invalid address.");
      validateEmailAvailable(snapshot, email, target.id);
      if (email !== target.delivery_email) await doChangeDeliveryEmail(app, tx, target, email);
    }
  });
}
