import { expect } from "chai";
import { Client, expectError, expectSuccess } from "../helpers/client.js";
import { startTestServer, TEST_HOST, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";

describe("authentication", function () {
  let server: TestServer;
  let realm: TestRealm;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  const basic = (value: string) => ({ headers: { authorization: value } });
  const b64 = (s: string) => Buffer.from(s).toString("base64");

  it("accepts the API email and key", async function () {
    const hamlet = realm.users.hamlet!;
    const body = expectSuccess(await hamlet.client.get("/users/me"));
    expect(body).to.include({ user_id: hamlet.id, email: hamlet.email, full_name: hamlet.fullName });
  });

  it("accepts the dummy email user{id}@{host} as the username", async function () {
    const hamlet = realm.users.hamlet!;
    const client = new Client(server.url, { email: `user${hamlet.id}@${TEST_HOST}`, apiKey: hamlet.apiKey });
    expect(expectSuccess(await client.get("/users/me")).user_id).to.equal(hamlet.id);
  });

  it("refuses a request without credentials with 401 UNAUTHORIZED and a Basic challenge", async function () {
    const res = await server.anonymous.get("/users/me");
    expectError(res, 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
    expect(res.headers.get("www-authenticate")).to.equal('Basic realm="zulip"');
  });

  it("refuses a non-Basic scheme and a malformed Basic header", async function () {
    expectError(
      await server.anonymous.get("/users/me", {}, basic("Bearer abc")),
      400,
      "This endpoint requires HTTP basic authentication.",
    );
    expectError(
      await server.anonymous.get("/users/me", {}, basic(`Basic ${b64("no-colon-here")}`)),
      401,
      "Invalid authorization header for basic auth",
      "UNAUTHORIZED",
    );
  });

  it("refuses a malformed key, an unknown key and a key of another user", async function () {
    const hamlet = realm.users.hamlet!;
    const othello = realm.users.othello!;
    expectError(
      await new Client(server.url, { email: hamlet.email, apiKey: "short" }).get("/users/me"),
      401,
      "Malformed API key",
      "INVALID_API_KEY",
    );
    expectError(
      await new Client(server.url, { email: hamlet.email, apiKey: "a".repeat(32) }).get("/users/me"),
      401,
      "Invalid API key",
      "INVALID_API_KEY",
    );
    expectError(
      await new Client(server.url, { email: hamlet.email, apiKey: othello.apiKey }).get("/users/me"),
      401,
      "Invalid API key",
      "INVALID_API_KEY",
    );
  });

  it("refuses deactivated users and deactivated realms", async function () {
    const cast = await server.factory.realm({ hamlet: 400, othello: 400 }, "Doomed");
    await server.app.knex("users").where({ id: cast.users.hamlet!.id }).update({ is_active: false });
    server.app.realms.invalidate(cast.id);
    expectError(
      await cast.users.hamlet!.client.get("/users/me"),
      401,
      "Account is deactivated",
      "USER_DEACTIVATED",
    );
    await server.app.knex("realms").where({ id: cast.id }).update({ deactivated: true });
    server.app.realms.invalidate(cast.id);
    expectError(
      await cast.users.othello!.client.get("/users/me"),
      401,
      "This organization is deactivated",
      "REALM_DEACTIVATED",
    );
  });

  it("ignores an Authorization header on /server_settings", async function () {
    const res = await server.anonymous.get("/server_settings", {}, basic("Basic garbage"));
    const body = expectSuccess(res);
    expect(body.zulip_version).to.be.a("string").and.not.empty;
    expect(body.zulip_feature_level).to.equal(496);
    expect(body.authentication_methods.password).to.equal(true);
    expect(body.realm_url).to.equal(`http://${TEST_HOST}`);
    expect(body.realm_name).to.equal("Elsinore");
    expect(body.push_notifications_enabled).to.equal(false);
    expect(body.external_authentication_methods).to.deep.equal([]);
  });

  describe("POST /fetch_api_key", function () {
    it("issues a new key per login, leaving earlier keys working", async function () {
      const hamlet = realm.users.hamlet!;
      const body = expectSuccess(
        await server.anonymous.post("/fetch_api_key", { username: hamlet.email, password: hamlet.password }),
      );
      expect(body).to.include({ email: hamlet.email, user_id: hamlet.id });
      expect(body.api_key).to.match(/^[A-Za-z0-9]{32}$/);
      expect(body.api_key).not.to.equal(hamlet.apiKey);
      expectSuccess(
        await new Client(server.url, { email: hamlet.email, apiKey: body.api_key }).get("/users/me"),
      );
      expectSuccess(await hamlet.client.get("/users/me"));
    });

    it("accepts zulip-js's multipart body", async function () {
      const hamlet = realm.users.hamlet!;
      const res = await server.anonymous.post(
        "/fetch_api_key",
        { username: hamlet.email, password: hamlet.password },
        { encoding: "multipart" },
      );
      expect(expectSuccess(res).user_id).to.equal(hamlet.id);
    });

    it("refuses a wrong password or an unknown user alike", async function () {
      const hamlet = realm.users.hamlet!;
      expectError(
        await server.anonymous.post("/fetch_api_key", { username: hamlet.email, password: "wrong" }),
        401,
        "Your username or password is incorrect",
        "AUTHENTICATION_FAILED",
      );
      expectError(
        await server.anonymous.post("/fetch_api_key", { username: "nobody@zulip.test", password: "x" }),
        401,
        "Your username or password is incorrect",
        "AUTHENTICATION_FAILED",
      );
      expectError(
        await server.anonymous.post("/fetch_api_key", { username: hamlet.email }),
        400,
        "Missing 'password' argument",
        "REQUEST_VARIABLE_MISSING",
      );
    });

    it("stores keys only as hashes", async function () {
      const hamlet = realm.users.hamlet!;
      const rows = await server.app.knex("api_keys").where({ user_id: hamlet.id }).select("key_hash");
      expect(rows.length).to.be.at.least(1);
      for (const row of rows as Array<{ key_hash: string }>) {
        expect(row.key_hash).to.match(/^[0-9a-f]{64}$/);
        expect(row.key_hash).not.to.equal(hamlet.apiKey);
      }
    });
  });

  it("regenerating the API key revokes every other key", async function () {
    const cast = await server.factory.realm({ cordelia: 400 }, "Regen");
    const cordelia = cast.users.cordelia!;
    const body = expectSuccess(await cordelia.client.post("/users/me/api_key/regenerate"));
    expect(body.api_key).to.match(/^[A-Za-z0-9]{32}$/);
    expectError(await cordelia.client.get("/users/me"), 401, "Invalid API key", "INVALID_API_KEY");
    expectSuccess(
      await new Client(server.url, { email: cordelia.email, apiKey: body.api_key }).get("/users/me"),
    );
  });
});
