import type { Knex } from "knex";

/**
 * Zulip's RealmExport: the organization's data exports (POST /export/realm), their state
 * and where the finished archive is stored. The background worker claims a requested
 * row (claimed_by/claimed_until, db/claims.ts) so that of several processes one runs it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("realm_exports", (t) => {
    t.increments("id").primary();
    t.integer("realm_id").notNullable().references("id").inTable("realms").onDelete("CASCADE");
    t.integer("acting_user_id").nullable().references("id").inTable("users");
    // Zulip's RealmExport.type: 1 public, 2 full with member consent.
    t.integer("export_type").notNullable();
    // requested, started, succeeded, failed, deleted (Zulip's RealmExport.status).
    t.string("status", 16).notNullable();
    // Milliseconds.
    t.bigInteger("date_requested").notNullable();
    t.bigInteger("date_started").nullable();
    t.bigInteger("date_succeeded").nullable();
    t.bigInteger("date_failed").nullable();
    t.bigInteger("date_deleted").nullable();
    // The archive's key in the upload store (avatars/<realm_id>/exports/<token>/<name>.tar.gz).
    t.string("export_key", 500).nullable();
    t.string("claimed_by", 128).nullable();
    t.bigInteger("claimed_until").nullable();
    t.index(["realm_id", "date_requested"]);
    t.index(["status"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("realm_exports");
}
