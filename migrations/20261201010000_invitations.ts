import type { Knex } from "knex";

/**
 * `invitations`: Zulip's PreregistrationUser (an email invitation, `email` set) and
 * MultiuseInvite (a reusable link, `is_multiuse`) in one table. Each has a confirmation
 * (kind `invitation` or `multiuse_invitation`, object_id = this row's ID) that holds its
 * expiry and whether it was used; revoking marks both.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("invitations", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id").onDelete("CASCADE");
    t.integer("referred_by").notNullable().references("users.id").onDelete("CASCADE");
    t.boolean("is_multiuse").notNullable().defaultTo(false);
    /** The invitee's address; null for a reusable link. */
    t.string("email", 254).nullable();
    /** The role the new user gets (Zulip's invited_as). */
    t.integer("invited_as").notNullable();
    /** JSON list of channel IDs the new user joins. */
    t.text("stream_ids").notNullable().defaultTo("[]");
    t.boolean("include_realm_default_subscriptions").notNullable().defaultTo(false);
    t.boolean("notify_referrer_on_join").notNullable().defaultTo(true);
    /**
     * A reusable link's token: GET /invites shows its link_url to those who manage it,
     * as Zulip does, so it is kept (email invitations' tokens are not).
     */
    t.string("link_token", 64).nullable();
    /** UNIX seconds. */
    t.bigInteger("created_at").notNullable();
    t.bigInteger("revoked_at").nullable();
    t.index(["realm_id", "referred_by"], "invitations_referrer");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("invitations");
}
