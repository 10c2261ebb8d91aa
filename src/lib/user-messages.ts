import type { Knex } from "knex";

/** The newest message the user has, or -1 (GET /users/me's deprecated max_message_id). */
export async function maxMessageIdForUser(knex: Knex, userId: number): Promise<number> {
  const row = await knex("user_messages")
    .where({ user_id: userId })
    .max<{ max: number | null }>("message_id as max")
    .first();
  return row?.max ?? -1;
}
