import { expect } from "chai";
import { basicAuth } from "./cli.js";
import { type ApiResponse, expectSuccess } from "./client.js";
import type { TestUser } from "./factories.js";
import type { TestServer } from "./server.js";

/** Uploading files as Zulip clients do (multipart, one file) and reading them back. */

/** A test user's Basic authorization header. */
export const userAuth = (user: TestUser) => basicAuth(user.email, user.apiKey);

/** POST /user_uploads with one file part (as the mobile app and zulip-terminal send it). */
export async function postUpload(
  user: TestUser,
  name: string,
  bytes: Uint8Array,
  options: { type?: string; path?: string; field?: string } = {},
): Promise<ApiResponse> {
  const form = new FormData();
  form.append(
    options.field ?? "file",
    new Blob([bytes], { type: options.type ?? "application/octet-stream" }),
    name,
  );
  const res = await fetch(new URL(`/api/v1${options.path ?? "/user_uploads"}`, user.client.baseUrl), {
    method: "POST",
    headers: userAuth(user),
    body: form,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** Uploads a file that must be accepted; returns its URL ("/user_uploads/<path_id>"). */
export async function upload(
  user: TestUser,
  name: string,
  bytes: Uint8Array,
  type?: string,
): Promise<string> {
  const body = expectSuccess(await postUpload(user, name, bytes, { type }));
  expect(body.uri).to.equal(body.url);
  return body.url as string;
}

export interface FileResponse {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** GET a URL outside /api/v1 (a file), as a user (Basic auth) or with no credentials. */
export async function getFile(
  baseUrl: string,
  path: string,
  user: TestUser | null,
  headers: Record<string, string> = {},
): Promise<FileResponse> {
  const res = await fetch(new URL(path, baseUrl), {
    headers: { ...(user ? userAuth(user) : {}), ...headers },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

export const pathIdOf = (url: string) => url.slice("/user_uploads/".length);

/** The message's stored has_attachment flag. */
export async function hasAttachment(server: TestServer, messageId: number): Promise<boolean> {
  const row = await server.app
    .knex("messages")
    .where({ id: messageId })
    .first<{ has_attachment: number | boolean }>("has_attachment");
  return Boolean(row.has_attachment);
}
