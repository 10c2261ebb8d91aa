import type { Knex } from "knex";

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
