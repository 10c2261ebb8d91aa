import type { Knex } from "knex";

/**
 * `emails`: outgoing email, queued durably in the transaction that causes it (an
 * invitation, a password reset, missed messages) and sent by a background worker with
 * retries; kept as `sent` or `failed` (with the server's last answer) afterwards. Rows are
 * claimed before sending (db/claims.ts), so of several processes exactly one sends each.
 *
 * `confirmations`: the single-use links chatd mails or prints (Zulip's Confirmation):
 * invitations, reusable invitation links, sign-up confirmations, password resets and
 * email changes. Only the SHA-256 of the link's token is stored.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("emails", (t) => {
    t.increments("id");
    /** The realm whose name the email is in; null for server-wide mail (`chatd email test`). */
    t.integer("realm_id").nullable().references("realms.id").onDelete("CASCADE");
    t.string("to_address", 254).notNullable();
    t.text("subject").notNullable();
    t.text("text_body").notNullable();
    t.text("html_body").notNullable();
    /** "queued", "sent" or "failed". */
    t.string("state", 16).notNullable().defaultTo("queued");
    t.integer("tries").notNullable().defaultTo(0);
    /** Milliseconds since the epoch. */
    t.bigInteger("next_attempt_at").notNullable();
    /** The SMTP server's last answer to a failed attempt (never the message itself). */
    t.text("last_error").nullable();
    t.text("claimed_by").nullable();
    t.bigInteger("claimed_until").nullable();
    /** UNIX seconds. */
    t.bigInteger("created_at").notNullable();
    t.bigInteger("sent_at").nullable();
    t.index(["state", "next_attempt_at"], "emails_due");
  });

  await knex.schema.createTable("confirmations", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id").onDelete("CASCADE");
    /** "invitation", "multiuse_invitation", "registration", "password_reset" or "email_change". */
    t.string("kind", 32).notNullable();
    t.string("token_hash", 64).notNullable().unique();
    /** The row it confirms, by kind: an invitation's ID, the user of a reset or an email change. */
    t.integer("object_id").nullable();
    /** The address it was sent to (an invitee, a new email address). */
    t.string("email", 254).nullable();
    /** Kind-specific details (JSON). */
    t.text("data").notNullable().defaultTo("{}");
    /** UNIX seconds; a null expiry never expires (Zulip's "never" invitations). */
    t.bigInteger("created_at").notNullable();
    t.bigInteger("expires_at").nullable();
    t.bigInteger("used_at").nullable();
    t.bigInteger("revoked_at").nullable();
    t.index(["realm_id", "kind", "object_id"], "confirmations_object");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("confirmations");
  await knex.schema.dropTable("emails");
}
