import { userGroupFlavour } from "../presenters/user-groups.js";
import { realmUserFlavour, userSettingsFlavour } from "../presenters/user-events.js";
import { streamEventFlavour, subscriptionEventFlavour } from "../presenters/channel-events.js";
import { messageFlavour } from "../presenters/messages.js";
import { deleteMessageFlavour } from "../presenters/message-deletion.js";
import type { Flavour } from "./types.js";

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
