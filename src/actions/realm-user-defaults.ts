import type { App } from "../app.js";
import type { RealmUserDefaultsRow } from "../db/rows.js";
import { activeUserIds } from "../lib/recipients.js";
import type { ParamSpec } from "../params.js";
import { realmUserSettingsDefaultsEvent } from "../presenters/events/users.js";
import { realmUserDefaultsRow } from "../queries/user-settings.js";
import { USER_SETTING_SPECS, settingValue, type SettingValue } from "../world/user-settings.js";

/**
 * PATCH /realm/user_settings_defaults (administrators; the endpoint checks): the
 * settings new users get. Existing users keep theirs, as in Zulip.
 */

const EDITABLE = USER_SETTING_SPECS.filter((spec) => spec.realmDefaultEditable);

/** The endpoint's parameters, alphabetical as Zulip checks them. */
export const REALM_USER_DEFAULT_PARAMS: ParamSpec = Object.fromEntries(
  [...EDITABLE]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((spec) => [spec.name, spec.defaultsParam.optional()]),
);

/** Changes each given default that differs, telling every active user (realm_user_settings_defaults). */
export async function checkUpdateRealmUserDefaults(
  app: App,
  realmId: number,
  values: Readonly<Record<string, unknown>>,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const current = await realmUserDefaultsRow(tx.knex, realmId);
    const snapshot = await app.realms.get(tx.knex, realmId);
    for (const spec of EDITABLE) {
      const value = values[spec.name] as SettingValue | undefined;
      const column = spec.name as keyof RealmUserDefaultsRow;
      if (value === undefined || value === settingValue(spec, current[column])) continue;
      await tx
        .knex("realm_user_settings_defaults")
        .where({ realm_id: realmId })
        .update({ [column]: value });
      tx.sendEventOnCommit(
        realmId,
        realmUserSettingsDefaultsEvent(spec.name, value),
        activeUserIds(snapshot),
      );
    }
  });
}
