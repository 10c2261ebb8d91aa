import type { Knex } from "knex";

/**
 * When each pending missed-message notification is due (Zulip's
 * ScheduledMessageNotificationEmail.scheduled_timestamp), milliseconds since the epoch:
 * a user's first notification sets it from their email_notifications_batching_period_seconds
 * and the ones written while it is pending share it, so a change of the setting applies from
 * the next batch (the worker also caps it: the server's missed_message_email_delay_secs after
 * sent_at). Rows already pending get Zulip's default period, two minutes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("missed_message_notifications", (t) => {
    t.bigInteger("due_at").notNullable().defaultTo(0);
  });
  await knex("missed_message_notifications").update({ due_at: knex.raw("sent_at + 120000") });
  await knex.schema.alterTable("missed_message_notifications", (t) => {
    t.index(["due_at"], "missed_message_notifications_due");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("missed_message_notifications", (t) => {
    t.dropIndex(["due_at"], "missed_message_notifications_due");
    t.dropColumn("due_at");
  });
}
