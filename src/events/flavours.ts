import {
  deleteMessageFlavour,
  messageFlavour,
  updateMessageFlagsFlavour,
  updateMessageFlavour,
} from "../presenters/events/messages.js";
import { typingEditMessageFlavour, typingFlavour } from "../presenters/events/typing.js";
import { streamEventFlavour, subscriptionEventFlavour } from "../presenters/events/channels.js";
import {
  LEGACY_SETTINGS_EVENT_TYPES,
  realmUserFlavour,
  userSettingsFlavour,
} from "../presenters/events/users.js";
import { userGroupFlavour } from "../presenters/events/user-groups.js";
import { realmEmojiFlavour, realmLinkifiersFlavour } from "../presenters/events/realm-features.js";
import { presenceFlavour } from "../presenters/events/presence.js";
import { mutedTopicsFlavour, userTopicFlavour } from "../presenters/events/user-topics.js";
import type { ChatEvent, ChatEventType, Flavour, FlavourContext, WireEvent } from "../wire/events.js";

/**
 * How each event type is presented to a queue: its flavour, or null where every client
 * gets the event as sent (with the recipient's extra merged in). The table is keyed by
 * every member of the ChatEvent union, so a new event type does not compile until
 * someone decides here how clients see it.
 */
export type FlavourTable = { readonly [T in ChatEventType]: Flavour<T> | null };

export const FLAVOURS: FlavourTable = {
  message: messageFlavour,
  update_message: updateMessageFlavour,
  delete_message: deleteMessageFlavour,
  update_message_flags: updateMessageFlagsFlavour,
  reaction: null,
  submessage: null,
  typing: typingFlavour,
  typing_edit_message: typingEditMessageFlavour,
  stream: streamEventFlavour,
  subscription: subscriptionEventFlavour,
  default_streams: null,
  channel_folder: null,
  realm: null,
  realm_user: realmUserFlavour,
  realm_bot: null,
  user_group: userGroupFlavour,
  user_settings: userSettingsFlavour,
  realm_user_settings_defaults: null,
  user_status: null,
  custom_profile_fields: null,
  navigation_view: null,
  saved_snippets: null,
  drafts: null,
  scheduled_messages: null,
  reminders: null,
  attachment: null,
  device: null,
  presence: presenceFlavour,
  user_topic: userTopicFlavour,
  muted_topics: mutedTopicsFlavour,
  muted_users: null,
  alert_words: null,
  realm_emoji: realmEmojiFlavour,
  realm_linkifiers: realmLinkifiersFlavour,
  realm_playgrounds: null,
  invites_changed: null,
  realm_export: null,
  realm_export_consent: null,
};

/**
 * Wire types a flavour delivers besides its own. A queue registered for some event types
 * gets each delivered event whose type it asked for (Zulip sends these as events of
 * their own), so the hub consults this before skipping a queue.
 */
export const ALSO_DELIVERED_AS: { readonly [T in ChatEventType]?: readonly string[] } = {
  user_settings: LEGACY_SETTINGS_EVENT_TYPES,
};

/** The event(s) one queue gets for `event`, or null for none. */
export function presentEvent(event: ChatEvent, ctx: FlavourContext): WireEvent | WireEvent[] | null {
  // The table pairs each type with the flavour of that type; TypeScript cannot follow
  // the pairing through `event.type`, hence the widening.
  const flavour = FLAVOURS[event.type] as Flavour | null;
  if (flavour) return flavour(event, ctx);
  return ctx.extra ? { ...event, ...ctx.extra } : event;
}
