import type { Knex } from "knex";
import { createSearchSchema } from "../src/db/search.js";

/** Full-text search index of messages (SQLite FTS5 or a PostgreSQL tsvector; see src/db/search.ts). */
export async function up(knex: Knex): Promise<void> {
  await createSearchSchema(knex);
}

export function down(): Promise<void> {
  return Promise.reject(new Error("Migrations are forward-only."));
}
