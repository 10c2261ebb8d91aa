import type { Knex } from "knex";

/**
 * Several server processes over one database (`chatd serve --workers N`).
 *
 * `event_log`: every committed change's events, in commit order (the ID; writers are
 * serialized), written in the same transaction as the change. Each process tails it and
 * applies each entry to its own queues and caches. An entry carries events, or cache
 * invalidations (`invalidates`), or the deletion of a queue (`deleted_queue_id`).
 *
 * `event_queues`: each event queue's registration and the point its copies resume from
 * (replaying the log after `resume_log_id`, numbering events from `resume_event_id`), so
 * any process can serve any queue, and a queue outlives the process that created it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("event_log", (t) => {
    t.bigIncrements("id");
    t.integer("realm_id").notNullable();
    // JSON: one ChatEvent; null for an entry that only invalidates or deletes a queue.
    t.text("event").nullable();
    // JSON: a list of user IDs, or [user ID, per-user fields] pairs (as in event_outbox).
    t.text("recipients").nullable();
    // JSON: [cache, realm ID] pairs the writer invalidated; ["*"] for every cache.
    t.text("invalidates").nullable();
    t.string("deleted_queue_id", 64).nullable();
    // The writing process: it has already applied its own invalidations.
    t.string("origin", 64).notNullable();
    t.bigInteger("created_at").notNullable();
  });
  await knex.schema.createTable("event_queues", (t) => {
    t.string("queue_id", 64).primary();
    t.integer("user_id").notNullable();
    t.integer("realm_id").notNullable();
    t.text("options").notNullable();
    t.bigInteger("resume_log_id").notNullable();
    t.integer("resume_event_id").notNullable();
    t.integer("acked_event_id").notNullable();
    t.bigInteger("last_access").notNullable();
    t.index(["last_access"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("event_queues");
  await knex.schema.dropTable("event_log");
}
