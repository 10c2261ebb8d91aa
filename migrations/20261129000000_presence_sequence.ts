import type { Knex } from "knex";

/**
 * One presence sequence for several processes (cache/presence-store.ts): a flush numbers
 * its changes after the largest `last_update_id` written, and each process reads the rows
 * numbered after what it last read; both look the numbers up in this index. The
 * `changed_at` index served the reads by time that this replaces.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("user_presence", (t) => {
    t.index(["last_update_id"], "user_presence_last_update_id");
    t.dropIndex(["changed_at"], "user_presence_changed_at");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("user_presence", (t) => {
    t.index(["changed_at"], "user_presence_changed_at");
    t.dropIndex(["last_update_id"], "user_presence_last_update_id");
  });
}
