import type { Flavour } from "../events/flavours.js";
import type { ChatEvent } from "../events/types.js";

const GRAVATAR_PREFIX = "https://secure.gravatar.com/";

/**
 * realm_user events carry full avatar URLs; a client that registered with
 * client_gravatar computes gravatars itself, so it gets null where /register would
 * have given it null (a gravatar of a user whose email everyone may see).
 */
export const realmUserFlavour: Flavour = (event, { options, extra }) => {
  const shaped: ChatEvent = extra ? { ...event, ...extra } : event;
  const person = shaped.person as Record<string, unknown> | undefined;
  if (!options.clientGravatar || !person || typeof person.avatar_url !== "string") return shaped;
  const publicEmail = person.delivery_email !== null && person.email === person.delivery_email;
  if (!publicEmail || !person.avatar_url.startsWith(GRAVATAR_PREFIX)) return shaped;
  return { ...shaped, person: { ...person, avatar_url: null } };
};
