import type { Knex } from "knex";

/**
 * Devices of the mobile app (Zulip's Device, POST /register_client_device, feature level
 * 468): the app registers one per account and refers to it by ID. chatd has no push
 * notification service, so a device never gets push keys or tokens: there are no
 * columns for them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("client_devices", (t) => {
    t.increments("id");
    t.integer("user_id").notNullable().references("users.id");
    t.bigInteger("date_created").notNullable();
    t.index(["user_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("client_devices");
}
