import { expect } from "chai";
import { expectError, expectSuccess } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";

describe("push device tokens (deprecated API)", function () {
  let server: TestServer;
  let realm: TestRealm;
  const hamlet = () => realm.users.hamlet!;
  const tokens = (userId: number) =>
    server.app
      .knex("push_devices")
      .where({ user_id: userId })
      .orderBy("id")
      .select<Array<{ kind: number; token: string; ios_app_id: string | null }>>(
        "kind",
        "token",
        "ios_app_id",
      );

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  it("adds and removes an APNs token; adding twice is fine", async function () {
    const client = hamlet().client;
    expectSuccess(
      await client.post("/users/me/apns_device_token", { token: "c0ffee", appid: "org.zulip.Zulip" }),
    );
    expectSuccess(
      await client.post("/users/me/apns_device_token", { token: "c0ffee", appid: "org.zulip.Zulip" }),
    );
    expect(await tokens(hamlet().id)).to.deep.equal([
      { kind: 1, token: "c0ffee", ios_app_id: "org.zulip.Zulip" },
    ]);
    expectSuccess(await client.delete("/users/me/apns_device_token", { token: "c0ffee" }));
    expect(await tokens(hamlet().id)).to.deep.equal([]);
    expectError(
      await client.delete("/users/me/apns_device_token", { token: "c0ffee" }),
      400,
      "Token does not exist",
    );
  });

  it("validates APNs tokens and app IDs", async function () {
    const client = hamlet().client;
    const add = (token: string, appid = "org.zulip.Zulip") =>
      client.post("/users/me/apns_device_token", { token, appid });
    expectError(await add(""), 400, "Empty or invalid length token");
    expectError(await add("ab".repeat(2049)), 400, "Empty or invalid length token");
    expectError(await add("not-hex"), 400, "Invalid APNS token");
    expectError(await add("abc"), 400, "Invalid APNS token");
    expectError(await add("c0ffee", "org.zulip/Zulip"), 400, "Invalid app ID");
    expectError(
      await client.post("/users/me/apns_device_token", { token: "c0ffee" }),
      400,
      "Missing 'appid' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await client.delete("/users/me/apns_device_token", { token: "zz" }),
      400,
      "Invalid APNS token",
    );
    expect(await tokens(hamlet().id)).to.deep.equal([]);
  });

  it("adds and removes an FCM token (any non-empty string)", async function () {
    const client = hamlet().client;
    expectSuccess(await client.post("/users/me/android_gcm_reg_id", { token: "android-token:1" }));
    expect(await tokens(hamlet().id)).to.deep.equal([
      { kind: 2, token: "android-token:1", ios_app_id: null },
    ]);
    expectError(
      await client.post("/users/me/android_gcm_reg_id", { token: "" }),
      400,
      "Empty or invalid length token",
    );
    expectError(
      await client.delete("/users/me/android_gcm_reg_id", { token: "other" }),
      400,
      "Token does not exist",
    );
    // Another user's token is not theirs to remove.
    expectError(
      await realm.users.othello!.client.delete("/users/me/android_gcm_reg_id", { token: "android-token:1" }),
      400,
      "Token does not exist",
    );
    expectSuccess(await client.delete("/users/me/android_gcm_reg_id", { token: "android-token:1" }));
    expect(await tokens(hamlet().id)).to.deep.equal([]);
  });

  it("is for humans only", async function () {
    const bot = await server.factory.user(realm.id, "fool-bot", 400, {
      isBot: true,
      botOwnerId: hamlet().id,
    });
    expectError(
      await bot.client.post("/users/me/android_gcm_reg_id", { token: "t" }),
      400,
      "This endpoint does not accept bot requests.",
    );
    expect(await tokens(bot.id)).to.deep.equal([]);
  });
});
