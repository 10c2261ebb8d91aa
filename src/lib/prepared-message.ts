import type { ChannelRow } from "../db/channel-rows.js";
import type { UserRow } from "../db/rows.js";
import type { DisplayRecipientUser, LocalEcho } from "../wire/records.js";
import type { RenderedMessage, TopicLink } from "../render/message.js";
import type { RealmSnapshot } from "../world/realm.js";
import type { Widget } from "./widgets.js";

/**
 * A message ready to be written: what actions/message-prepare.ts decides and
 * actions/message-write.ts stores. Declared here, below actions, because the App's
 * group commit of sends (app.ts) carries them.
 */

/** Where a message goes. */
export type MessageRecipient =
  | { type: "stream"; channel: ChannelRow }
  /** A one-to-one (or self) direct message: the receiving user's personal recipient. */
  | { type: "personal"; userId: number }
  /** A direct message group: every participant, the sender included, ascending. */
  | { type: "group"; userIds: readonly number[] };

/** A validated, rendered message with its recipients' flags: all the write part needs. */
export interface PreparedMessage {
  realm: RealmSnapshot;
  sender: UserRow;
  recipient: MessageRecipient;
  /** "" for direct messages. */
  topic: string;
  /** Normalized Markdown source. */
  content: string;
  rendered: Pick<
    RenderedMessage,
    "html" | "isMeMessage" | "hasLink" | "hasImage" | "potentialAttachmentPathIds"
  >;
  /** Sending client's name (`client` of the message). */
  client: string;
  /** display_recipient: the channel's name or the participants. */
  displayRecipient: string | DisplayRecipientUser[];
  topicLinks: readonly TopicLink[];
  /** Every user who gets the message (a user_messages row and the event), with their flag bits. */
  userFlags: ReadonlyMap<number, number>;
  /** Channel messages: who is mentioned (directly or through a group), recipients or not. */
  mentionedUserIds?: ReadonlySet<number>;
  /** local_id + queue_id of the request: that queue's event echoes local_message_id. */
  echo?: LocalEcho;
  /** The widget `widget_content` gave; otherwise the one the content starts, if any. */
  widget?: Widget;
  /** Zulip's disable_external_notifications (Welcome Bot): nobody is emailed about it. */
  disableExternalNotifications?: boolean;
}
