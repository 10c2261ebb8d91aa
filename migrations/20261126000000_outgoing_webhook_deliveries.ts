import type { Knex } from "knex";

/**
 * Outgoing webhook deliveries still to make (Zulip's outgoing_webhooks queue, made
 * durable): written in the transaction of the message that triggers them, deleted once
 * delivered or given up, so a restart or crash loses none (at-least-once).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("outgoing_webhook_deliveries", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable();
    t.integer("bot_user_id").notNullable().references("users.id");
    t.integer("message_id").notNullable();
    /** "mention" or "direct_message". */
    t.text("trigger").notNullable();
    /** The Message record of the payload as it was sent (JSON). */
    t.text("message").notNullable();
    /** Attempts that failed with a timeout or a connection error (Zulip's failed_tries). */
    t.integer("failed_tries").notNullable().defaultTo(0);
    /** Milliseconds since the epoch. */
    t.bigInteger("next_attempt_at").notNullable();
    t.index(["next_attempt_at"], "outgoing_webhook_deliveries_due");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("outgoing_webhook_deliveries");
}
