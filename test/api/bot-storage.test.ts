import { expect } from "chai";
import { createBot, type TestBot } from "../helpers/bots.js";
import { type Client, expectError, expectSuccess } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("bot storage: PUT, GET and DELETE /bot_storage", function () {
  let server: TestServer;

  before(async function () {
    // A body big enough to fill a bot's storage in one request.
    server = await startTestServer({ body_limit_bytes: 24 * 1024 * 1024 });
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm = await server.factory.realm();
    return { realm, u: (name: string) => realm.users[name]! };
  };
  const storage = async (client: Client, keys?: string[]) =>
    expectSuccess(await client.get("/bot_storage", keys ? { keys } : {})).storage as Record<string, string>;
  const stored = async (bot: TestBot) =>
    Object.fromEntries(
      (await server.app.knex("bot_storage").where({ bot_user_id: bot.id }).select("key", "value")).map(
        (r: { key: string; value: string }) => [r.key, r.value],
      ),
    );

  it("stores, reads, updates and removes entries as Zulip's endpoint test does", async function () {
    const { u } = await fresh();
    const bot = await createBot(u("hamlet"), "keeper");
    const initial = { "key 1": "value 1", "key 2": "value 2", "key 3": "value 3" };
    expectSuccess(await bot.client.request("PUT", "/bot_storage", { storage: initial }));
    expect(await storage(bot.client, ["key 1", "key 3"])).to.deep.equal({
      "key 1": "value 1",
      "key 3": "value 3",
    });
    expect(await storage(bot.client)).to.deep.equal(initial);
    expectSuccess(
      await bot.client.request("PUT", "/bot_storage", {
        storage: { "key 1": "new value", "key 4": "value 4" },
      }),
    );
    const updated: Record<string, string> = { ...initial, "key 1": "new value", "key 4": "value 4" };
    expect(await storage(bot.client)).to.deep.equal(updated);

    expectError(await bot.client.get("/bot_storage", { keys: "key 1" }), 400, "keys is not valid JSON");
    expectError(
      await bot.client.get("/bot_storage", { keys: ["key 1", "nonexistent key"] }),
      400,
      "Key does not exist.",
    );
    expectError(
      await bot.client.request("PUT", "/bot_storage", { storage: { foo: [1, 2, 3] } }),
      400,
      'storage["foo"] is not a string',
    );
    expectError(
      await bot.client.request("PUT", "/bot_storage", {}),
      400,
      "Missing 'storage' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expect(await stored(bot)).to.deep.equal(updated);

    expectSuccess(await bot.client.delete("/bot_storage", { keys: ["key 1", "key 2"] }));
    delete updated["key 1"];
    delete updated["key 2"];
    expect(await storage(bot.client)).to.deep.equal(updated);
    // One missing key: nothing is removed.
    expectError(
      await bot.client.delete("/bot_storage", { keys: ["key 3", "nonexistent key"] }),
      400,
      "Key does not exist.",
    );
    expect(await storage(bot.client)).to.deep.equal(updated);
    // An empty list reads and removes nothing; no list means everything.
    expect(await storage(bot.client, [])).to.deep.equal({});
    expectSuccess(await bot.client.delete("/bot_storage", { keys: [] }));
    expect(await stored(bot)).to.deep.equal(updated);
    expectSuccess(await bot.client.delete("/bot_storage"));
    expect(await storage(bot.client)).to.deep.equal({});
  });

  it("keeps each caller's storage its own: a person has theirs, and never reaches a bot's", async function () {
    const { u } = await fresh();
    const bot = await createBot(u("hamlet"), "keeper");
    const other = await createBot(u("hamlet"), "other");
    expectSuccess(await bot.client.request("PUT", "/bot_storage", { storage: { count: "3" } }));
    expect(await storage(other.client)).to.deep.equal({});
    expectError(await other.client.get("/bot_storage", { keys: ["count"] }), 400, "Key does not exist.");
    // Zulip keys storage by the caller: the bot's owner and an administrator have their
    // own, empty until they write, and asking for the bot's key finds nothing.
    for (const person of [u("hamlet"), u("iago")]) {
      expect(await storage(person.client)).to.deep.equal({});
      expectError(await person.client.get("/bot_storage", { keys: ["count"] }), 400, "Key does not exist.");
      expectError(
        await person.client.delete("/bot_storage", { keys: ["count"] }),
        400,
        "Key does not exist.",
      );
    }
    expectSuccess(await u("hamlet").client.request("PUT", "/bot_storage", { storage: { count: "9" } }));
    expect(await storage(u("hamlet").client, ["count"])).to.deep.equal({ count: "9" });
    expect(await storage(u("iago").client)).to.deep.equal({});
    expect(await stored(bot)).to.deep.equal({ count: "3" });
    expect(await storage(bot.client)).to.deep.equal({ count: "3" });
    const rows = (id: number) =>
      server.app.knex("bot_storage").where({ bot_user_id: id }).select("key", "value");
    expect(await rows(u("hamlet").id)).to.deep.equal([{ key: "count", value: "9" }]);
    // Removing one's entries leaves everyone else's.
    expectSuccess(await u("hamlet").client.delete("/bot_storage"));
    expect(await rows(u("hamlet").id)).to.deep.equal([]);
    expect(await stored(bot)).to.deep.equal({ count: "3" });
  });

  it("takes any string as a key, __proto__ included", async function () {
    const { u } = await fresh();
    const bot = await createBot(u("hamlet"), "keeper");
    const entries = '{"__proto__": "p", "constructor": "c", "": "empty", "ключ": "значение"}';
    expectSuccess(await bot.client.request("PUT", "/bot_storage", { storage: entries }));
    const got = await storage(bot.client, ["__proto__", "constructor", "", "ключ"]);
    expect(Object.keys(got).sort()).to.deep.equal(["", "__proto__", "constructor", "ключ"]);
    expect(got.ключ).to.equal("значение");
    expect(Object.getOwnPropertyDescriptor(got, "__proto__")?.value).to.equal("p");
  });

  it("holds at most 10,000,000 characters of keys and values per bot", async function () {
    this.timeout(60_000);
    const { u } = await fresh();
    const bot = await createBot(u("hamlet"), "keeper");
    const other = await createBot(u("hamlet"), "other");
    const key = "capacity-filling entry";
    // Characters, not bytes: "é" is two bytes in UTF-8 and counts once.
    const value = "é".repeat(1000) + "x".repeat(10_000_000 - key.length - 1000);
    expectSuccess(
      await bot.client.request("PUT", "/bot_storage", { storage: { [key]: value } }, { encoding: "json" }),
    );
    expectError(
      await bot.client.request("PUT", "/bot_storage", {
        storage: { "too much data": "a few bits too long" },
      }),
      400,
      "Request exceeds storage limit by 32 characters. The limit is 10000000 characters.",
    );
    expect(Object.keys(await stored(bot))).to.deep.equal([key]);
    // Replacing an entry counts only the difference; other bots have their own room.
    expectSuccess(await bot.client.request("PUT", "/bot_storage", { storage: { [key]: "small" } }));
    expectSuccess(
      await other.client.request("PUT", "/bot_storage", { storage: { big: "x".repeat(9_999_000) } }),
    );
    expectSuccess(
      await bot.client.request("PUT", "/bot_storage", { storage: { "too much data": "fits now" } }),
    );
  });
});
