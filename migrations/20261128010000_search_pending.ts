import type { Knex } from "knex";

/**
 * Messages sent but not yet in the full-text index (as Zulip's fts_update_log): a send
 * writes its IDs here in its transaction, and indexing runs right after the commit
 * (actions/search-index.ts), off the send's transaction; start-up indexes what a crash
 * left here. Messages sent before this migration were indexed at their send.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("search_pending", (t) => {
    t.integer("message_id").primary();
  });
}

export function down(): Promise<void> {
  return Promise.reject(new Error("Migrations are forward-only."));
}
