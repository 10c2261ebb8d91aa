import type { Knex } from "knex";

/**
 * Partial indexes for the narrows is:mentioned (any mention flag, group mentions
 * included) and is:alerted (see src/lib/narrow/build.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    "CREATE INDEX user_messages_any_mention ON user_messages (user_id, message_id) WHERE (flags & 120) <> 0",
  );
  await knex.raw(
    "CREATE INDEX user_messages_alerted ON user_messages (user_id, message_id) WHERE (flags & 512) <> 0",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DROP INDEX user_messages_any_mention");
  await knex.raw("DROP INDEX user_messages_alerted");
}
