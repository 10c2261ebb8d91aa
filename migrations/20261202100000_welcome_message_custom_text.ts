import type { Knex } from "knex";

/**
 * Zulip's Realm.welcome_message_custom_text: the organization's own words that Welcome
 * Bot adds to its welcome (at most 8000 characters; "" for none).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("realms", (t) => {
    t.text("welcome_message_custom_text").notNullable().defaultTo("");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("realms", (t) => {
    t.dropColumn("welcome_message_custom_text");
  });
}
