import type { Knex } from "knex";

/**
 * Code playgrounds (Zulip's RealmPlayground): where a code block of a language can be
 * opened, `url_template` an RFC 6570 template over `{code}`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("realm_playgrounds", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    t.text("name").notNullable();
    t.string("pygments_language", 40).notNullable();
    t.text("url_template").notNullable();
    t.unique(["realm_id", "pygments_language", "name"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("realm_playgrounds");
}
