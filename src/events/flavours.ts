import { userGroupFlavour } from "../presenters/user-groups.js";
import { realmUserFlavour, userSettingsFlavour } from "../presenters/user-events.js";
import { streamEventFlavour, subscriptionEventFlavour } from "../presenters/channel-events.js";
import { messageFlavour } from "../presenters/messages.js";
import { deleteMessageFlavour } from "../presenters/message-deletion.js";
import type { ChatEvent, QueueOptions } from "./types.js";

export interface FlavourContext {
  readonly userId: number;
  /** The queue the event is going to. */
  readonly queueId: string;
  readonly options: QueueOptions;
  /** Per-recipient data the sender attached (e.g. a message's flags for this user). */
  readonly extra: Record<string, unknown> | undefined;
}

/**
 * Reshapes an event for one queue (client capabilities, Markdown or not, per-user
 * fields). Returns the event(s) this queue gets, or null for none.
 */
export type Flavour = (event: ChatEvent, ctx: FlavourContext) => ChatEvent | ChatEvent[] | null;

/** Event types whose shape depends on the client; the rest go out as sent. */
const FLAVOURS: Readonly<Record<string, Flavour>> = {
  realm_user: realmUserFlavour,
  user_group: userGroupFlavour,
  user_settings: userSettingsFlavour,
  stream: streamEventFlavour,
  subscription: subscriptionEventFlavour,
  message: messageFlavour,
  delete_message: deleteMessageFlavour,
};

export const flavourFor = (type: string): Flavour | undefined => FLAVOURS[type];
