import type { Flavour } from "../events/types.js";
import type { ChatEvent } from "../events/types.js";

const GRAVATAR_PREFIX = "https://secure.gravatar.com/";

/**
 * Per-recipient marker on realm_user events whose person has no delivery_email (an
 * avatar change): the recipient may see the target's real email. Never sent on the wire.
 */
export const VIEWER_SEES_EMAIL = "viewer_sees_email";

/**
 * realm_user events carry full avatar URLs; a client that registered with
 * client_gravatar computes gravatars itself, so it gets null where /register would
 * have given it null: a gravatar of a user whose real email the recipient can see.
 */
export const realmUserFlavour: Flavour = (event, { options, extra }) => {
  let shaped: ChatEvent = event;
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
 * the user's email under LEGACY_USER_EMAIL for it; that key is never sent.
 */
export const LEGACY_USER_EMAIL = "legacy_user_email";
const LEGACY_NOTIFICATION_SETTINGS = new Set(["presence_enabled"]);

export const userSettingsFlavour: Flavour = (event, { options, extra }) => {
  const { [LEGACY_USER_EMAIL]: email, ...shaped }: ChatEvent = extra ? { ...event, ...extra } : event;
  if (options.capabilities.user_settings_object === true) return shaped;
  const property = shaped.property;
  if (typeof property !== "string" || !LEGACY_NOTIFICATION_SETTINGS.has(property)) return shaped;
  const legacy: ChatEvent = {
    type: "update_global_notifications",
    user: email,
    notification_name: property,
    setting: shaped.value,
  };
  return [shaped, legacy];
};
