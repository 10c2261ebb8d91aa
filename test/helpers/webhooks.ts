import { readFileSync } from "node:fs";
import type { TestServer } from "./server.js";

/** A fixture of test/fixtures/webhooks/<integration>/, as its text. */
export const webhookFixture = (integration: string, file: string) =>
  readFileSync(new URL(`../../../test/fixtures/webhooks/${integration}/${file}`, import.meta.url), "utf8");

export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** POST /api/v1/external/<pathAndQuery> with a raw body. */
export async function postWebhook(
  server: TestServer,
  pathAndQuery: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<WebhookAnswer> {
  const res = await fetch(`${server.url}/api/v1/external/${pathAndQuery}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export interface PostedMessage {
  id: number;
  sender_id: number;
  stream_id: number | null;
  topic: string;
  content: string;
  sending_client: string;
}

/** The newest message, or undefined. */
export const lastMessage = (server: TestServer) =>
  server.app.knex<PostedMessage>("messages").orderBy("id", "desc").first();
