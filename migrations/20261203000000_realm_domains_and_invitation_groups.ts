import type { Knex } from "knex";

/**
 * `realm_domains`: Zulip's RealmDomain, the domains whose addresses may join when the
 * realm's emails_restricted_to_domains is on (with their subdomains when
 * allow_subdomains). Stored lower-case, at most once per realm.
 *
 * `invitations.group_ids`: the user groups (JSON list of IDs) a person joins on signing
 * up with the invitation (Zulip's PreregistrationUser.groups and MultiuseInvite.groups).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("realm_domains", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id").onDelete("CASCADE");
    /** Zulip's RealmDomain.domain: max_length 80. */
    t.string("domain", 80).notNullable();
    t.boolean("allow_subdomains").notNullable().defaultTo(false);
    t.unique(["realm_id", "domain"], { indexName: "realm_domains_realm_domain" });
  });
  await knex.schema.alterTable("invitations", (t) => {
    t.text("group_ids").notNullable().defaultTo("[]");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("invitations", (t) => {
    t.dropColumn("group_ids");
  });
  await knex.schema.dropTable("realm_domains");
}
