import type { Knex } from "knex";

/**
 * Zulip's presence last_update_id: each change of a user's presence takes the next
 * number of the realm's sequence, so clients can fetch only what changed since their
 * last poll. The sequence itself is the realm's largest value (kept in memory).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("user_presence", (t) => {
    t.bigInteger("last_update_id").notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("user_presence", (t) => {
    t.dropColumn("last_update_id");
  });
}
