import type { Knex } from "knex";

/**
 * Events of writes made by other processes (the `chatd` admin commands): written in the
 * same transaction as the change, published and removed by the running server.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("event_outbox", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable();
    t.text("event").notNullable();
    // JSON: a list of user IDs, or [user ID, per-user fields] pairs.
    t.text("recipients").notNullable();
    t.bigInteger("created_at").notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("event_outbox");
}
