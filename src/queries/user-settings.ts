import type { Knex } from "knex";
import type { RealmUserDefaultsRow } from "../db/rows.js";
import { hasCapability } from "../wire/events.js";
import {
  presentLegacySettings,
  presentRealmUserDefaults,
  presentUserSettings,
} from "../presenters/user-settings.js";
import type { StateContext } from "./state-context.js";

/** The realm's settings for new users (one row per realm, created with the realm). */
export async function realmUserDefaultsRow(knex: Knex, realmId: number): Promise<RealmUserDefaultsRow> {
  const row = await knex<RealmUserDefaultsRow>("realm_user_settings_defaults")
    .where({ realm_id: realmId })
    .first();
  if (!row) throw new Error(`realm ${realmId} has no user settings defaults`);
  return row;
}

/** `user_settings`: sent to every client that asks, with or without user_settings_object. */
export function fetchUserSettingsState(ctx: StateContext): Promise<Record<string, unknown>> {
  return Promise.resolve({ user_settings: presentUserSettings(ctx.user) });
}

/** The legacy fetch types: top-level keys, only for clients without user_settings_object. */
export function fetchLegacyDisplaySettingsState(ctx: StateContext): Promise<Record<string, unknown>> {
  if (hasCapability(ctx.options, "user_settings_object")) return Promise.resolve({});
  return Promise.resolve(presentLegacySettings(ctx.user, "display"));
}

export function fetchLegacyNotificationSettingsState(ctx: StateContext): Promise<Record<string, unknown>> {
  if (hasCapability(ctx.options, "user_settings_object")) return Promise.resolve({});
  return Promise.resolve(presentLegacySettings(ctx.user, "notification"));
}

export async function fetchRealmUserSettingsDefaultsState(
  ctx: StateContext,
): Promise<Record<string, unknown>> {
  return {
    realm_user_settings_defaults: presentRealmUserDefaults(
      await realmUserDefaultsRow(ctx.knex, ctx.realm.id),
    ),
  };
}
