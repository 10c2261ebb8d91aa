import {
  type CustomProfileFieldsEvent,
  type Flavour,
  type PersonUpdate,
  type RealmBotEvent,
  type RealmUserEvent,
  type UserSettingsEvent,
  type UserStatusEvent,
  type WireEvent,
} from "../../events/types.js";
import type { WireEmoji, WireProfileField } from "../../events/wire-types.js";

/** Events about users: realm_user, user_settings, user_status, custom_profile_fields. */

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

/** realm_bot update: a bot's (de)activation, for those who administer it. */
export const realmBotActivationEvent = (botId: number, isActive: boolean): RealmBotEvent => ({
  type: "realm_bot",
  op: "update",
  bot: { user_id: botId, is_active: isActive },
});

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

/**
 * user_settings events: clients without the user_settings_object capability also get
 * the legacy update_global_notifications event for notification settings. Actions put
 * the user's email under LEGACY_USER_EMAIL in the per-recipient extra; never sent.
 */
export const LEGACY_USER_EMAIL = "legacy_user_email";
const LEGACY_NOTIFICATION_SETTINGS = new Set(["presence_enabled"]);

export function userSettingsEvent(property: string, value: unknown): UserSettingsEvent {
  return { type: "user_settings", op: "update", property, value };
}

export const userSettingsFlavour: Flavour<"user_settings"> = (event, { options, extra }) => {
  const { [LEGACY_USER_EMAIL]: email, ...shaped }: WireEvent = extra ? { ...event, ...extra } : event;
  if (options.capabilities.user_settings_object === true) return shaped;
  if (!LEGACY_NOTIFICATION_SETTINGS.has(event.property)) return shaped;
  const legacy: WireEvent = {
    type: "update_global_notifications",
    user: email,
    notification_name: event.property,
    setting: shaped.value,
  };
  return [shaped, legacy];
};

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
