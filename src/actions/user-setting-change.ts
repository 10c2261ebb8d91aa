import type { App } from "../app.js";
import { bool, type UserRow, type UserSettingName } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { activeUserIds } from "../lib/recipients.js";
import { realmUserEvents, userSettingsEvent } from "../presenters/events/users.js";
import { isAdminRole } from "../world/roles.js";
import type { SettingValue } from "../world/user-settings.js";
import { doForgetDrafts } from "./drafts.js";
import { doChangePresenceEnabled } from "./presence.js";
import { doChangeEmailVisibility } from "./user-email.js";

/**
 * Zulip's do_change_user_setting: stores one personal setting and tells the user's
 * clients (user_settings, and the legacy event for clients that need it). A few
 * settings do more: the time zone everyone sees, who sees the email, presence_enabled,
 * which shows the user offline (or active again) to everyone, turning drafts
 * synchronization off, which forgets the drafts the server holds, and the data-export
 * consent, which administrators are told of.
 * `user` is the row before the change; the caller checked the value. Returns the row after it.
 */
export async function doChangeUserSetting(
  app: App,
  tx: Tx,
  user: UserRow,
  name: UserSettingName,
  value: SettingValue,
): Promise<UserRow> {
  await tx
    .knex("users")
    .where({ id: user.id })
    .update({ [name]: value });
  const changed: UserRow = { ...user, [name as string]: value };
  tx.afterCommit(() => app.realms.invalidate(user.realm_id));
  tx.sendEventOnCommit(user.realm_id, userSettingsEvent(user, name, value), [user.id]);
  if (name === "timezone") {
    const snapshot = await app.realms.get(tx.knex, user.realm_id);
    tx.sendEventOnCommit(
      user.realm_id,
      realmUserEvents.update({ user_id: user.id, email: user.email, timezone: String(value) }),
      activeUserIds(snapshot),
    );
  } else if (name === "email_address_visibility") {
    const email = await doChangeEmailVisibility(app, tx, user, user.email_address_visibility, Number(value));
    return { ...changed, email };
  } else if (name === "enable_drafts_synchronization" && value === false) {
    await doForgetDrafts(tx, user.id);
  } else if (name === "allow_private_data_export") {
    // Zulip's do_change_user_setting: administrators see who consents to data exports.
    const snapshot = await app.realms.get(tx.knex, user.realm_id);
    const admins = [...snapshot.users].filter(
      (u) => bool(u.is_active) && !bool(u.is_bot) && isAdminRole(u.role),
    );
    tx.sendEventOnCommit(
      user.realm_id,
      { type: "realm_export_consent", user_id: user.id, consented: value === true },
      admins.map((u) => u.id),
    );
  } else if (name === "presence_enabled") {
    const snapshot = await app.realms.get(tx.knex, user.realm_id);
    await doChangePresenceEnabled(app, tx, snapshot, user, value === true);
  }
  return changed;
}
