import type { Knex } from "knex";

/**
 * Drafts (Zulip's Draft). Addressees are stored as the API presents them: a channel ID,
 * or the user IDs of a direct message (the other participants; the user alone for a
 * note to self).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("drafts", (t) => {
    t.increments("id");
    t.integer("user_id").notNullable().references("users.id");
    // "" (unaddressed), "stream" or "private".
    t.string("type", 10).notNullable();
    // JSON list: [channel ID] or the direct message's user IDs.
    t.text("to_ids").notNullable();
    t.string("topic", 60).notNullable().defaultTo("");
    t.text("content").notNullable();
    // UNIX seconds, to the microsecond.
    t.double("last_edit_time").notNullable();
    t.index(["user_id", "last_edit_time"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("drafts");
}
