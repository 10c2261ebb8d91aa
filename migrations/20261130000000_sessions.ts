import type { Knex } from "knex";

/**
 * Browser sessions of the web client (cookie `sessionid`): the token is random and only
 * its SHA-256 is stored, as for API keys. A session ends by logging out, by a password
 * change (the user's other sessions), by deactivation, or by expiring: idle for longer
 * than `session_idle_timeout_secs`, or older than `session_max_age_secs`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("sessions", (t) => {
    t.increments("id");
    t.string("token_hash", 64).notNullable().unique();
    t.integer("user_id").notNullable().references("users.id").onDelete("CASCADE");
    // UNIX seconds, as every other timestamp.
    t.bigInteger("created_at").notNullable();
    t.bigInteger("last_active_at").notNullable();
    t.index(["user_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("sessions");
}
