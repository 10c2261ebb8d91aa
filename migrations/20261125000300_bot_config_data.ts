import type { Knex } from "knex";

/**
 * A bot's configuration (Zulip's BotConfigData): key/value strings set when an
 * incoming-webhook bot is created for an integration (`integration_id` and the
 * integration's options) or changed with PATCH /bots/{id} `config_data`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("bot_config_data", (t) => {
    t.integer("bot_user_id").notNullable().references("users.id");
    t.text("key").notNullable();
    t.text("value").notNullable();
    t.primary(["bot_user_id", "key"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("bot_config_data");
}
