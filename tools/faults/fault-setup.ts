import { Client, expectSuccess, type Params } from "../../test/helpers/client.js";

/** What the fault passes share: users to act as, and reading every message back. */

/** A new member created by the owner, logged in with its password: its ID and a client. */
export async function userWithKey(
  owner: Client,
  email: string,
  password: string,
  fullName: string,
): Promise<{ userId: number; email: string; apiKey: string; client: Client }> {
  const created = expectSuccess(await owner.post("/users", { email, password, full_name: fullName }));
  const anonymous = new Client(owner.baseUrl, null);
  const login = expectSuccess(await anonymous.post("/fetch_api_key", { username: email, password }));
  const apiKey = login.api_key as string;
  return {
    userId: created.user_id as number,
    email,
    apiKey,
    client: new Client(owner.baseUrl, { email, apiKey }),
  };
}

/** Every message after `after` the client can read (narrowed by `params`), oldest first, 5000 a page. */
export async function messagesAfter<M extends { id: number }>(
  client: Client,
  after: number,
  params: Params = {},
): Promise<M[]> {
  const found: M[] = [];
  let anchor = after;
  for (;;) {
    const page = expectSuccess(
      await client.get("/messages", {
        ...params,
        anchor,
        include_anchor: false,
        num_before: 0,
        num_after: 5000,
      }),
    );
    const messages = page.messages as M[];
    found.push(...messages);
    if (page.found_newest || messages.length === 0) return found;
    anchor = messages[messages.length - 1]!.id;
  }
}
