import type { Knex } from "knex";

/**
 * Everyone's visibility policy for one topic, which the primary key (user first) does
 * not serve: moving a topic carries its policies along.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("user_topics", (t) => {
    t.index(["stream_id", "topic_key"], "user_topics_stream_topic");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("user_topics", (t) => {
    t.dropIndex(["stream_id", "topic_key"], "user_topics_stream_topic");
  });
}
