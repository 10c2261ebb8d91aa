import type { Knex } from "knex";
import type { Config } from "../config.js";
import { RECIPIENT_TYPE, type ChannelRow } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import { JsonableError, badRequest } from "../errors.js";
import { userOrSystemBotByVisibleEmail } from "../lib/access-users.js";
import { validateChannelName } from "../lib/channel-validation.js";
import { isSystemBot } from "../lib/message-render.js";
import type { MessageRecipient } from "../lib/prepared-message.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { escapeHtml } from "../lib/html.js";
import { userHasChannelPermission, userHasRealmPermission } from "../permissions/setting-permissions.js";
import type { ChannelSnapshot } from "../world/channels.js";
import type { RealmSnapshot } from "../world/realm.js";

/**
 * Who a message sent through POST /messages goes to, and whether its sender may write
 * there (Zulip's Addressee and the checks of check_message before rendering).
 */

const channelDoesNotExist = (name: string) =>
  new JsonableError(`Channel '${escapeHtml(name)}' does not exist`, "STREAM_DOES_NOT_EXIST", 400, {
    stream: escapeHtml(name),
  });
const channelIdDoesNotExist = (id: number) =>
  new JsonableError(`Channel with ID '${id}' does not exist`, "STREAM_DOES_NOT_EXIST", 400, {
    stream_id: id,
  });

/** Zulip's validate_stream_name_with_pm_notification / validate_stream_id_with_pm_notification. */
export function channelForSend(
  channels: ChannelSnapshot,
  realmId: number,
  indicator: string | number,
): ChannelRow {
  if (typeof indicator === "number") {
    const channel = channels.channel(indicator);
    if (!channel || channel.realm_id !== realmId) throw channelIdDoesNotExist(indicator);
    return channel;
  }
  const name = validateChannelName(indicator);
  const channel = channels.channelByName(name);
  if (!channel || channel.realm_id !== realmId) throw channelDoesNotExist(name);
  return channel;
}

/** The sender's bot owner, whose permissions a bot may use. */
const botOwner = (realm: RealmSnapshot, sender: UserRow) =>
  bool(sender.is_bot) && sender.bot_owner_id !== null ? realm.user(sender.bot_owner_id) : undefined;

/** Zulip's check_for_can_create_topic_group_violation. */
export async function requireCanCreateTopic(
  knex: Knex,
  realm: RealmSnapshot,
  sender: UserRow,
  channel: ChannelRow,
  topic: string,
): Promise<void> {
  if (isSystemBot(sender)) return;
  if (channel.can_create_topic_group_id === realm.systemGroupId("role:everyone")) return;
  const existing = await knex("messages")
    .where({ stream_id: channel.id, topic_key: topic.toLowerCase() })
    .first<{ id: number } | undefined>("id");
  if (existing) return;
  const may = (user: UserRow) => userHasChannelPermission(realm, user, channel, "can_create_topic_group");
  const owner = botOwner(realm, sender);
  if (may(sender) || (owner && may(owner))) return;
  throw badRequest("You do not have permission to create new topics in this channel.");
}

/** Zulip's topics_policy checks (the channel's, or with `inherit` the organization's). */
export function validateTopicForPolicy(realm: RealmSnapshot, channel: ChannelRow, topic: string): void {
  const policy = channel.topics_policy === "inherit" ? realm.realm.topics_policy : channel.topics_policy;
  const name = emptyTopicDisplayName(realm.realm);
  if (policy === "disable_empty_topic" && topic === "") {
    throw badRequest(`Sending messages to the ${name} topic is not allowed in this channel.`);
  }
  if (policy === "empty_topic_only" && topic !== "") {
    throw badRequest(`Only the ${name} topic is allowed in this channel.`);
  }
}

/** A direct message recipient by ID: any user of the realm, or a system bot. */
export function directRecipientById(realm: RealmSnapshot, userId: number): UserRow {
  const user = realm.userOrSystemBot(userId);
  if (!user) throw badRequest(`Invalid user ID ${userId}`);
  return user;
}

/** By an email the sender may see (a hidden real one is as invalid as an unknown one). */
export function directRecipientByEmail(
  config: Config,
  realm: RealmSnapshot,
  sender: UserRow,
  email: string,
): UserRow {
  const user = userOrSystemBotByVisibleEmail(config, realm, sender, email);
  if (!user) throw badRequest(`Invalid email '${email}'`);
  return user;
}

/** Zulip's check_can_send_direct_message. */
export async function requireCanSendDirectMessage(
  knex: Knex,
  realm: RealmSnapshot,
  sender: UserRow,
  recipients: readonly UserRow[],
  target: MessageRecipient,
): Promise<void> {
  if (bool(sender.is_bot)) return;
  if (recipients.every((user) => bool(user.is_bot) || user.id === sender.id)) return;
  const involved = [...recipients, sender];
  if (!involved.some((user) => userHasRealmPermission(realm, user, "direct_message_permission_group"))) {
    const nobody = realm.realm.direct_message_permission_group_id === realm.systemGroupId("role:nobody");
    throw badRequest(
      nobody
        ? "Direct messages are disabled in this organization."
        : "This conversation does not include any users who can authorize it.",
    );
  }
  if (userHasRealmPermission(realm, sender, "direct_message_initiator_group")) return;
  if (!(await conversationExists(knex, realm, sender, target))) {
    throw badRequest("You do not have permission to initiate direct message conversations.");
  }
}

/** Has anyone written in this direct message conversation before? */
async function conversationExists(
  knex: Knex,
  realm: RealmSnapshot,
  sender: UserRow,
  target: MessageRecipient,
): Promise<boolean> {
  if (target.type === "group") {
    const row = await knex("direct_message_groups as g")
      .join("recipients as r", "r.type_id", "g.id")
      .join("messages as m", "m.recipient_id", "r.id")
      .where({ "g.realm_id": realm.id, "g.user_ids_key": target.userIds.join(","), "r.type": 3 })
      .first<{ id: number } | undefined>("m.id");
    return row !== undefined;
  }
  if (target.type !== "personal") return false;
  const recipients = await knex("recipients")
    .where({ type: RECIPIENT_TYPE.PERSONAL })
    .whereIn("type_id", [sender.id, target.userId])
    .select<Array<{ id: number; type_id: number }>>("id", "type_id");
  const recipientOf = (userId: number) => recipients.find((r) => r.type_id === userId)?.id ?? -1;
  const row = await knex("messages")
    .where({ sender_id: sender.id, recipient_id: recipientOf(target.userId) })
    .orWhere({ sender_id: target.userId, recipient_id: recipientOf(sender.id) })
    .first<{ id: number } | undefined>("id");
  return row !== undefined;
}
