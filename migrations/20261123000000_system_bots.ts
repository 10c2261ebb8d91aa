import type { Knex } from "knex";

/**
 * System bots (the Notification Bot) are users of a realm that are not people: they
 * post notices, belong to no group and are listed apart (register's cross_realm_bots),
 * like Zulip's cross-realm bots.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (t) => {
    t.boolean("is_system_bot").notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (t) => {
    t.dropColumn("is_system_bot");
  });
}
