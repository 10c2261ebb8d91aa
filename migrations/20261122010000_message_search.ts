import type { Knex } from "knex";
import { createSearchSchema } from "../src/db/search-sqlite.js";

/** Full-text search index of messages (SQLite FTS5; see src/db/search-sqlite.ts). */
export async function up(knex: Knex): Promise<void> {
  await createSearchSchema(knex);
}

export function down(): Promise<void> {
  return Promise.reject(new Error("Migrations are forward-only."));
}
