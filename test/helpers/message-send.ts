import { isPostgres } from "../../src/db/dialect.js";
import { toTsQuery } from "../../src/db/search-postgres.js";
import { tokenize } from "../../src/db/search-tokens.js";
import { flagNames } from "../../src/lib/message-flags.js";
import { expectSuccess, type ApiResponse, type Params } from "./client.js";
import type { TestUser } from "./factories.js";
import type { TestServer } from "./server.js";

/** Sending messages over the API, and reading what was stored. */

/** POST /messages to a channel (by name or ID); returns the raw response. */
export function postToChannel(
  sender: TestUser,
  channel: string | number,
  topic: string,
  content: string,
  params: Params = {},
): Promise<ApiResponse> {
  return sender.client.post("/messages", { type: "stream", to: channel, topic, content, ...params });
}

/** Sends a channel message that must succeed; returns its ID. */
export async function sendToChannel(
  sender: TestUser,
  channel: string | number,
  topic: string,
  content: string,
  params: Params = {},
): Promise<number> {
  return expectSuccess(await postToChannel(sender, channel, topic, content, params)).id as number;
}

/** POST /messages as a direct message to users (IDs); returns the raw response. */
export function postDirect(
  sender: TestUser,
  to: readonly TestUser[] | string,
  content: string,
  params: Params = {},
): Promise<ApiResponse> {
  const recipients = typeof to === "string" ? to : to.map((u) => u.id);
  return sender.client.post("/messages", { type: "direct", to: recipients, content, ...params });
}

export async function sendDirect(
  sender: TestUser,
  to: readonly TestUser[],
  content: string,
  params: Params = {},
): Promise<number> {
  return expectSuccess(await postDirect(sender, to, content, params)).id as number;
}

export interface StoredMessage {
  id: number;
  sender_id: number;
  recipient_id: number;
  stream_id: number | null;
  topic: string;
  content: string;
  rendered_content: string;
  sending_client: string;
  has_link: number | boolean;
  has_image: number | boolean;
  is_me_message: number | boolean;
}

export async function messageRow(server: TestServer, id: number): Promise<StoredMessage> {
  const row = await server.app.knex<StoredMessage>("messages").where({ id }).first();
  if (!row) throw new Error(`no message ${id}`);
  return row;
}

export async function messageCount(server: TestServer): Promise<number> {
  const row = await server.app.knex("messages").count<Array<{ n: number }>>("id as n").first();
  return Number(row?.n ?? 0);
}

/** Each recipient's flag names for a message, by user ID (only users with a row). */
export async function flagsByUser(server: TestServer, messageId: number): Promise<Map<number, string[]>> {
  const rows = await server.app
    .knex("user_messages")
    .where({ message_id: messageId })
    .select<Array<{ user_id: number; flags: number }>>("user_id", "flags");
  return new Map(rows.map((r) => [r.user_id, flagNames(r.flags)]));
}

/** The raw flag bits of each recipient (internal flags such as is_private included). */
export async function flagBits(server: TestServer, messageId: number): Promise<Map<number, number>> {
  const rows = await server.app
    .knex("user_messages")
    .where({ message_id: messageId })
    .select<Array<{ user_id: number; flags: number }>>("user_id", "flags");
  return new Map(rows.map((r) => [r.user_id, r.flags]));
}

/**
 * The message IDs the full-text index finds for an FTS5 query (words, or `topic:word`).
 * On PostgreSQL the same query is translated for its tsvector index.
 */
export async function searchIndex(server: TestServer, query: string): Promise<number[]> {
  if (isPostgres(server.app.knex)) {
    const topicOnly = query.startsWith("topic:");
    const terms = tokenize(topicOnly ? query.slice("topic:".length) : query).map((w) => [w]);
    const ids = await server.app
      .knex("message_search")
      .whereRaw("document @@ ?::tsquery", [toTsQuery(terms, { topicOnly })])
      .pluck<number[]>("message_id");
    return ids.sort((a, b) => a - b);
  }
  const rows = await server.app
    .knex("message_search")
    .whereRaw("message_search MATCH ?", [query])
    .select<Array<{ rowid: number }>>("rowid");
  return rows.map((r) => r.rowid).sort((a, b) => a - b);
}
