import { expect } from "chai";
import { createBot } from "../helpers/bots.js";
import { createChannel } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { messageCount } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const REFUSED = "This API is not available to incoming webhook bots.";

describe("bots: incoming-webhook bots may only send messages", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  it("sends to a channel and to a person with its key", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    await createChannel(hamlet, "news", [hamlet]);
    const feed = await createBot(hamlet, "feed", { bot_type: 2 });
    const sent = expectSuccess(
      await feed.client.post("/messages", { type: "stream", to: "news", topic: "builds", content: "green" }),
    );
    const row = await server.app
      .knex("messages")
      .where({ id: sent.id as number })
      .first<{ sender_id: number }>();
    expect(row?.sender_id).to.equal(feed.id);
    expectSuccess(await feed.client.post("/messages", { type: "private", to: [hamlet.id], content: "hi" }));
  });

  it("is refused everything else, changing nothing", async function () {
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    const feed = await createBot(hamlet, "feed", { bot_type: 2 });
    const before = await messageCount(server);
    for (const [method, path, params] of [
      ["get", "/users/me", {}],
      ["get", "/messages", { anchor: "newest", num_before: 1, num_after: 0 }],
      ["post", "/register", {}],
      ["patch", "/settings", { full_name: "Renamed" }],
      ["put", "/bot_storage", { storage: { count: "1" } }],
      ["get", "/bot_storage", {}],
      ["post", "/bots", { full_name: "Spawn", short_name: "spawn" }],
    ] as const) {
      const res = await feed.client.request(method.toUpperCase(), path, params);
      expectError(res, 400, REFUSED);
    }
    expect(await messageCount(server)).to.equal(before);
    expect(await server.app.knex("bot_storage").where({ bot_user_id: feed.id })).to.deep.equal([]);
    const bot = await server.app.knex("users").where({ id: feed.id }).first<{ full_name: string }>();
    expect(bot?.full_name).to.equal("feed bot");
    expect(await server.app.knex("users").where({ email: "spawn-bot@chatd.test" })).to.deep.equal([]);
  });

  it("other bots keep the whole API", async function () {
    const realm = await server.factory.realm();
    const generic = await createBot(realm.users.hamlet!, "helper");
    expectSuccess(await generic.client.get("/users/me"));
    expectSuccess(await generic.client.request("PUT", "/bot_storage", { storage: { count: "1" } }));
  });
});
