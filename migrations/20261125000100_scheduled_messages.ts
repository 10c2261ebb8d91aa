import type { Knex } from "knex";

/**
 * Scheduled messages (Zulip's ScheduledMessage, which holds both "send later" messages
 * and message reminders, told apart by delivery_type). Direct message addressees are
 * stored as the API presents them: the other participants' user IDs (the sender alone
 * for a note to self).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("scheduled_messages", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    t.integer("sender_id").notNullable().references("users.id");
    // 1: send later, 2: reminder (Zulip's SEND_LATER and REMIND).
    t.integer("delivery_type").notNullable();
    // "stream" or "private".
    t.string("recipient_type", 10).notNullable();
    t.integer("stream_id").nullable().references("streams.id");
    // JSON list of user IDs for direct messages.
    t.text("to_user_ids").nullable();
    t.string("topic", 60).notNullable().defaultTo("");
    t.text("content").notNullable();
    t.text("rendered_content").notNullable();
    t.string("sending_client", 100).notNullable().defaultTo("");
    t.boolean("read_by_sender").notNullable().defaultTo(false);
    t.bigInteger("scheduled_timestamp").notNullable();
    t.boolean("delivered").notNullable().defaultTo(false);
    t.integer("delivered_message_id").nullable().references("messages.id").onDelete("SET NULL");
    t.boolean("failed").notNullable().defaultTo(false);
    t.text("failure_message").nullable();
    // The message a reminder is about (it may be deleted later: no foreign key).
    t.integer("reminder_target_message_id").nullable();
    t.text("reminder_note").nullable();
  });
  // What the delivery timer looks for: the earliest undelivered item.
  await knex.raw(
    "CREATE INDEX scheduled_messages_pending ON scheduled_messages (scheduled_timestamp) " +
      "WHERE NOT delivered AND NOT failed",
  );
  // A user's undelivered scheduled messages or reminders, in delivery order.
  await knex.raw(
    "CREATE INDEX scheduled_messages_by_sender ON scheduled_messages " +
      "(sender_id, delivery_type, scheduled_timestamp) WHERE NOT delivered",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("scheduled_messages");
}
