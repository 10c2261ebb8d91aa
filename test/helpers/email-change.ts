import { expect } from "chai";
import type { TestServer } from "./server.js";
import { browse } from "./web.js";

/** The path of the newest email-change confirmation link mailed to `address` (queued or sent). */
export async function emailChangeLink(server: TestServer, address: string): Promise<string> {
  const row = await server.app
    .knex("emails")
    .where({ to_address: address })
    .orderBy("id", "desc")
    .first<{ text_body: string } | undefined>("text_body");
  expect(row, `an email to ${address}`).not.to.equal(undefined);
  const match = /http:\/\/chatd\.test(\/accounts\/confirm_new_email\/\?token=[\w-]{43})/.exec(row!.text_body);
  expect(match, row!.text_body).not.to.equal(null);
  return match![1]!;
}

/** Follows the link mailed to `address`, as its recipient would; the page's answer. */
export async function confirmEmailChange(server: TestServer, address: string): Promise<Response> {
  return browse(server, await emailChangeLink(server, address));
}
