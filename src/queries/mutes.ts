import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { mutedTopicsOf, userTopicsOf } from "../lib/user-topics.js";
import { mutedUsersOf } from "../lib/muted-users.js";
import { hasCapability } from "../wire/events.js";
import { presentMutedTopics, presentUserTopic } from "../presenters/user-topics.js";
import type { StateContext } from "./state-context.js";

/** What the empty topic is called for this client (null: it knows the empty topic). */
const emptyTopicName = (ctx: StateContext) =>
  hasCapability(ctx.options, "empty_topic_name") ? null : emptyTopicDisplayName(ctx.realm.realm);

/** The `user_topic` fetch type: every topic the user gave a visibility policy. */
export async function fetchUserTopicState(ctx: StateContext): Promise<Record<string, unknown>> {
  const rows = await userTopicsOf(ctx.knex, ctx.user.id);
  const name = emptyTopicName(ctx);
  return { user_topics: rows.map((row) => presentUserTopic(row, name)) };
}

/**
 * The legacy `muted_topics` fetch type, left out for clients that ask for `user_topic`
 * by name (Zulip 6.0 and later), so they can ask for both whatever the server.
 */
export async function fetchMutedTopicsState(ctx: StateContext): Promise<Record<string, unknown>> {
  if (ctx.fetchTypes?.includes("user_topic")) return {};
  return {
    muted_topics: presentMutedTopics(await mutedTopicsOf(ctx.knex, ctx.user.id), emptyTopicName(ctx)),
  };
}

export async function fetchMutedUsersState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { muted_users: await mutedUsersOf(ctx.knex, ctx.user.id) };
}
