import { Client, expectSuccess, type Params } from "./client.js";
import type { TestUser } from "./factories.js";

/** A bot made over POST /bots, with a client holding its key. */
export interface TestBot {
  id: number;
  email: string;
  apiKey: string;
  client: Client;
}

/** POST /bots as `owner` (a generic bot unless params say otherwise); must succeed. */
export async function createBot(
  owner: TestUser,
  shortName: string,
  params: Params = {},
  host = "chatd.test",
): Promise<TestBot> {
  const body = expectSuccess(
    await owner.client.post("/bots", { full_name: `${shortName} bot`, short_name: shortName, ...params }),
  );
  const email = `${shortName}-bot@${host}`;
  const apiKey = body.api_key as string;
  return {
    id: body.user_id as number,
    email,
    apiKey,
    client: new Client(owner.client.baseUrl, { email, apiKey }),
  };
}
