import type { Knex } from "knex";

/**
 * Claims on queued work (db/claims.ts): several server processes, on one machine or on
 * several over one PostgreSQL database, each run the delivery timers; a process claims a
 * delivery or a scheduled message (`claimed_by`, and a lease until `claimed_until`, in
 * milliseconds) before doing it, so each is done once, and again only after the lease of
 * a claimer that died.
 *
 * `user_presence.changed_at`: when (milliseconds) the presence was recorded, so that a
 * process writing an older change never overwrites a newer one written by another, and
 * each process can read the changes others wrote since it last looked.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of ["outgoing_webhook_deliveries", "scheduled_messages"]) {
    await knex.schema.alterTable(table, (t) => {
      t.string("claimed_by", 128).nullable();
      t.bigInteger("claimed_until").nullable();
    });
  }
  await knex.schema.alterTable("user_presence", (t) => {
    t.bigInteger("changed_at").notNullable().defaultTo(0);
    t.index(["changed_at"], "user_presence_changed_at");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("user_presence", (t) => {
    t.dropIndex(["changed_at"], "user_presence_changed_at");
    t.dropColumn("changed_at");
  });
  for (const table of ["scheduled_messages", "outgoing_webhook_deliveries"]) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn("claimed_until");
      t.dropColumn("claimed_by");
    });
  }
}
