import type { Knex } from "knex";

/**
 * Missed-message notifications waiting to be emailed (Zulip's
 * ScheduledMessageNotificationEmail): one row per recipient and message, written in the
 * message's own transaction, so a restart or a crash loses none. A user's rows are
 * emailed together once the oldest is due (the server's `missed_message_email_delay_secs`
 * after it was sent) and deleted in the transaction that queues the email.
 *
 * And the realm's `message_content_allowed_in_email_notifications` (Zulip's), which those
 * emails honour: an organization may keep message content out of every email.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("missed_message_notifications", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id").onDelete("CASCADE");
    t.integer("user_id").notNullable().references("users.id").onDelete("CASCADE");
    /** No foreign key: a deleted message's rows are dropped when the batch is due. */
    t.integer("message_id").notNullable();
    /** Why it is notified (Zulip's NotificationTriggers): "direct_message", "mentioned", ... */
    t.string("trigger", 40).notNullable();
    /**
     * Whether the sending process saw that the user was off (no queue of theirs receiving
     * messages); otherwise (several workers, an admin command) the worker asks the queues
     * when the batch falls due.
     */
    t.boolean("seen_off").notNullable();
    /** When the message was sent: milliseconds since the epoch. */
    t.bigInteger("sent_at").notNullable();
    t.index(["sent_at"], "missed_message_notifications_sent");
    t.index(["user_id"], "missed_message_notifications_user");
  });
  // Zulip's Realm.message_content_allowed_in_email_notifications.
  await knex.schema.alterTable("realms", (t) => {
    t.boolean("message_content_allowed_in_email_notifications").notNullable().defaultTo(true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("realms", (t) => {
    t.dropColumn("message_content_allowed_in_email_notifications");
  });
  await knex.schema.dropTable("missed_message_notifications");
}
