import type { RealmUserDefaultsRow, UserRow } from "../db/rows.js";
import {
  EMOJISET_CHOICES,
  NOTIFICATION_SOUNDS,
  USER_SETTING_SPECS,
  settingValue,
  type LegacyGroup,
} from "../world/user-settings.js";

/** Register's settings records, as Zulip's fetch_initial_state_data builds them. */

const emojisetChoices = () => EMOJISET_CHOICES.map((choice) => ({ ...choice }));

/** `user_settings`: every setting, with the choices clients offer. */
export function presentUserSettings(user: UserRow): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const spec of USER_SETTING_SPECS) settings[spec.name] = settingValue(spec, user[spec.name]);
  settings.emojiset_choices = emojisetChoices();
  settings.available_notification_sounds = [...NOTIFICATION_SOUNDS];
  return settings;
}

/**
 * The top-level keys of the legacy update_display_settings / update_global_notifications
 * fetch types, for clients without the user_settings_object capability.
 */
export function presentLegacySettings(user: UserRow, group: LegacyGroup): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const spec of USER_SETTING_SPECS) {
    if (spec.legacy === group) state[spec.name] = settingValue(spec, user[spec.name]);
  }
  if (group === "display") state.emojiset_choices = emojisetChoices();
  else state.available_notification_sounds = [...NOTIFICATION_SOUNDS];
  return state;
}

/** `realm_user_settings_defaults`: what new users get. */
export function presentRealmUserDefaults(row: RealmUserDefaultsRow): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const spec of USER_SETTING_SPECS) {
    if (spec.hasRealmDefault) {
      defaults[spec.name] = settingValue(spec, row[spec.name as keyof RealmUserDefaultsRow]);
    }
  }
  defaults.emojiset_choices = emojisetChoices();
  defaults.available_notification_sounds = [...NOTIFICATION_SOUNDS];
  return defaults;
}
