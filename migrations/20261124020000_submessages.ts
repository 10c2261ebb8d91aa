import type { Knex } from "knex";

/**
 * Submessages (Zulip's SubMessage): data attached to a message after it was sent, read by
 * client widgets: the poll or to-do list a `/poll` or `/todo` message creates, then each
 * vote, option or task. Ordered by ID within a message.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("submessages", (t) => {
    t.increments("id");
    t.integer("message_id").notNullable().references("messages.id").onDelete("CASCADE");
    t.integer("sender_id").notNullable().references("users.id");
    t.string("msg_type", 100).notNullable();
    t.text("content").notNullable();
    t.index(["message_id", "id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("submessages");
}
