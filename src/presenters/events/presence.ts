import { hasCapability, type Flavour, type PresenceEvent } from "../../wire/events.js";
import type { PresenceTimes } from "../../lib/presence.js";
import { presentLegacyClientPresence, presentModernPresence } from "../presence.js";

/** A user's presence changed in a way other clients should hear of at once. */
export function presenceEvent(
  user: { id: number; email: string; dateJoined: number },
  times: PresenceTimes,
  serverTimestamp: number,
): PresenceEvent {
  return {
    type: "presence",
    user_id: user.id,
    email: user.email,
    server_timestamp: serverTimestamp,
    presence: { website: presentLegacyClientPresence(times, user.dateJoined) },
    _modern: presentModernPresence(times, user.dateJoined),
  };
}

/**
 * Zulip's three shapes of a presence event: modern (`presences` keyed by user ID) for
 * clients with the simplified_presence_events capability, else legacy, without `email`
 * for queues registered with slim_presence.
 */
export const presenceFlavour: Flavour<"presence"> = (event, { options }) => {
  const { _modern: modern, ...legacy } = event;
  if (hasCapability(options, "simplified_presence_events")) {
    return { type: "presence", presences: { [String(legacy.user_id)]: modern } };
  }
  if (!options.slimPresence) return legacy;
  const { email: _email, ...slim } = legacy;
  return slim;
};
