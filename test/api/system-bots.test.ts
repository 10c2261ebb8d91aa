import { expect } from "chai";
import { rmSync } from "node:fs";
import { cast } from "../helpers/channels.js";
import { Client } from "../helpers/client.js";
import { register } from "../helpers/events.js";
import { startTestServer, TEST_HOST } from "../helpers/server.js";

const SYSTEM_BOTS = [`notification-bot@${TEST_HOST}`, `welcome-bot@${TEST_HOST}`];

/** The emails of register's cross_realm_bots, sorted. */
async function crossRealmBots(client: Client): Promise<string[]> {
  const state = await register(client, { fetch_event_types: ["realm_user"] });
  return (state.cross_realm_bots as Array<{ email: string }>).map((b) => b.email).sort();
}

/**
 * Register's cross_realm_bots changes by no event (Zulip's bots exist before any realm),
 * so a realm has every system bot from its creation, not from the bot's first message.
 */
describe("system bots", function () {
  it("are in a new realm's first register, before either has sent anything", async function () {
    const server = await startTestServer();
    try {
      const { hamlet } = cast(await server.factory.realm());
      expect(await crossRealmBots(hamlet.client)).to.deep.equal(SYSTEM_BOTS);
      const sent = await server.app.knex("messages").count<Array<{ n: number }>>({ n: "*" });
      expect(Number(sent[0]!.n)).to.equal(0);
    } finally {
      await server.close();
    }
  });

  it("are made at the next start for a realm that lacks them (an older database)", async function () {
    let server = await startTestServer({}, { keepDataDir: true });
    const dataDir = server.dataDir;
    try {
      const { hamlet } = cast(await server.factory.realm());
      await server.app.db.transaction((tx) => tx.knex("users").where({ is_system_bot: true }).delete());
      await server.stop();

      server = await startTestServer({}, { dataDir, keepDataDir: true });
      const client = new Client(server.url, { email: hamlet.email, apiKey: hamlet.apiKey });
      expect(await crossRealmBots(client)).to.deep.equal(SYSTEM_BOTS);
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
