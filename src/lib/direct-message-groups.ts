import type { Knex } from "knex";
import { RECIPIENT_TYPE } from "../db/channel-rows.js";

/** Members of direct message groups, by group ID, in one query (sorted user IDs). */
export async function groupMembersById(
  knex: Knex,
  groupIds: Iterable<number>,
): Promise<Map<number, number[]>> {
  const ids = [...new Set(groupIds)];
  if (ids.length === 0) return new Map();
  const groups = await knex("direct_message_groups")
    .whereIn("id", ids)
    .select<Array<{ id: number; user_ids_key: string }>>("id", "user_ids_key");
  return new Map(groups.map((g) => [g.id, g.user_ids_key.split(",").map(Number)]));
}

/** Who a direct message went to: one user (to oneself too), or a group's members. */
export type DirectConversation = { type: "personal"; userId: number } | { type: "group"; userIds: number[] };

/** The direct conversation of a message's recipient; undefined for a channel's. */
export async function directConversation(
  knex: Knex,
  recipientId: number,
): Promise<DirectConversation | undefined> {
  const recipient = await knex("recipients")
    .where({ id: recipientId })
    .first<{ type: number; type_id: number } | undefined>("type", "type_id");
  if (recipient?.type === RECIPIENT_TYPE.PERSONAL) return { type: "personal", userId: recipient.type_id };
  if (recipient?.type !== RECIPIENT_TYPE.DIRECT_MESSAGE_GROUP) return undefined;
  const members = await groupMembersById(knex, [recipient.type_id]);
  return { type: "group", userIds: members.get(recipient.type_id) ?? [] };
}
