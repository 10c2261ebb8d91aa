import type { UserRow } from "../../db/rows.js";
import {
  type CustomProfileFieldsEvent,
  type Flavour,
  type PersonUpdate,
  type RealmUserEvent,
  type RealmUserSettingsDefaultsEvent,
  type UserSettingsEvent,
  type UserStatusEvent,
  type WireEvent,
} from "../../wire/events.js";
import type { WireEmoji, WireProfileField } from "../../wire/records.js";
import { languageName } from "../../world/languages.js";
import { userSettingSpec, type SettingValue } from "../../world/user-settings.js";

/**
 * Events about users: realm_user, user_settings, realm_user_settings_defaults,
 * user_status, custom_profile_fields.
 */

const GRAVATAR_PREFIX = "https://secure.gravatar.com/";

/**
 * Per-recipient marker on realm_user events whose person has no delivery_email (an
 * avatar change): the recipient may see the target's real email. Never sent on the wire.
 */
export const VIEWER_SEES_EMAIL = "viewer_sees_email";

export const realmUserEvents = {
  /** A new user: each recipient's `person` goes in their per-recipient extra. */
  add(): RealmUserEvent {
    return { type: "realm_user", op: "add" };
  },
  update(person: PersonUpdate): RealmUserEvent {
    return { type: "realm_user", op: "update", person };
  },
};

/**
 * realm_user events carry full avatar URLs; a client that registered with
 * client_gravatar computes gravatars itself, so it gets null where /register would
 * have given it null: a gravatar of a user whose real email the recipient can see.
 */
export const realmUserFlavour: Flavour<"realm_user"> = (event, { options, extra }) => {
  let shaped: WireEvent = event;
  let seesEmail = false;
  if (extra) {
    const { [VIEWER_SEES_EMAIL]: sees, ...rest } = extra;
    seesEmail = sees === true;
    shaped = { ...event, ...rest };
  }
  const person = shaped.person as Record<string, unknown> | undefined;
  if (!options.clientGravatar || !person || typeof person.avatar_url !== "string") return shaped;
  const visible = "delivery_email" in person ? person.delivery_email !== null : seesEmail;
  if (!visible || !person.avatar_url.startsWith(GRAVATAR_PREFIX)) return shaped;
  return { ...shaped, person: { ...person, avatar_url: null } };
};

/** A change of one of the user's own settings (sent to that user only). */
export function userSettingsEvent(user: UserRow, property: string, value: SettingValue): UserSettingsEvent {
  const legacy = userSettingSpec(property)?.legacy ?? null;
  return {
    type: "user_settings",
    op: "update",
    property,
    value,
    ...(property === "default_language" ? { language_name: languageName(String(value)) } : {}),
    _legacy: legacy ? { group: legacy, user: user.email } : null,
  };
}

/**
 * Clients with the user_settings_object capability get the user_settings event alone;
 * others also get the legacy event of settings older than feature level 89, as Zulip
 * sends both and its queues drop the legacy one for capable clients.
 */
export const userSettingsFlavour: Flavour<"user_settings"> = (event, { options }) => {
  const { _legacy: legacy, ...modern } = event;
  if (!legacy || options.capabilities.user_settings_object === true) return modern;
  const languageName = event.language_name !== undefined ? { language_name: event.language_name } : {};
  const old: WireEvent =
    legacy.group === "display"
      ? {
          type: "update_display_settings",
          user: legacy.user,
          setting_name: event.property,
          setting: event.value,
          ...languageName,
        }
      : {
          type: "update_global_notifications",
          user: legacy.user,
          notification_name: event.property,
          setting: event.value,
        };
  return [modern, old];
};

/** The wire types userSettingsFlavour may deliver besides user_settings. */
export const LEGACY_SETTINGS_EVENT_TYPES = ["update_display_settings", "update_global_notifications"];

export function realmUserSettingsDefaultsEvent(
  property: string,
  value: SettingValue,
): RealmUserSettingsDefaultsEvent {
  return { type: "realm_user_settings_defaults", op: "update", property, value };
}

/** What changed in a user's status; only the given fields are sent. */
export interface UserStatusChange {
  away?: boolean;
  statusText?: string;
  emoji?: WireEmoji;
}

export function userStatusEvent(userId: number, change: UserStatusChange): UserStatusEvent {
  return {
    type: "user_status",
    user_id: userId,
    ...(change.away !== undefined ? { away: change.away } : {}),
    ...(change.statusText !== undefined ? { status_text: change.statusText } : {}),
    ...(change.emoji ?? {}),
  };
}

/** The realm's whole, new list of custom profile fields. */
export function customProfileFieldsEvent(fields: WireProfileField[]): CustomProfileFieldsEvent {
  return { type: "custom_profile_fields", fields };
}
