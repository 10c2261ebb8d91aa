import { expect } from "chai";
import { expectError, expectSuccess } from "../helpers/client.js";
import { register } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";

describe("request parsing and envelopes", function () {
  let server: TestServer;
  let realm: TestRealm;

  before(async function () {
    server = await startTestServer({ body_limit_bytes: 65536 });
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  const hamlet = () => realm.users.hamlet!.client;

  it("reports unknown parameters in ignored_parameters_unsupported, sorted", async function () {
    const body = expectSuccess(
      await hamlet().get("/users", { zebra: 1, apple: "x", client_gravatar: false }),
    );
    expect(body.ignored_parameters_unsupported).to.deep.equal(["apple", "zebra"]);
    const clean = expectSuccess(await hamlet().get("/users", { client_gravatar: false }));
    expect(clean).not.to.have.property("ignored_parameters_unsupported");
  });

  it("treats the python client's retry flag like any unknown parameter", async function () {
    const body = expectSuccess(await hamlet().get("/users/me", { dont_block: true }));
    expect(body.ignored_parameters_unsupported).to.deep.equal(["dont_block"]);
  });

  it("names the parameter for each bad-input class", async function () {
    expectError(await hamlet().get("/users", { user_ids: "[1," }), 400, "user_ids is not valid JSON");
    expectError(await hamlet().get("/users", { user_ids: { a: 1 } }), 400, "user_ids is not a list");
    expectError(await hamlet().get("/users", { user_ids: ["x"] }), 400, "user_ids[0] is not an integer");
    expectError(
      await hamlet().get("/users", { client_gravatar: "maybe" }),
      400,
      "client_gravatar is not a boolean",
    );
    expectError(
      await server.anonymous.post("/fetch_api_key", { password: "x" }),
      400,
      "Missing 'username' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    const missing = await server.anonymous.post("/fetch_api_key", { password: "x" });
    expect(missing.body.var_name).to.equal("username");
  });

  it("refuses a nonexistent user ID or email with Zulip's error", async function () {
    expectError(await hamlet().get("/users/999999"), 400, "No such user");
    expectError(await hamlet().get("/users/nobody@zulip.test"), 400, "No such user");
  });

  it("answers unknown routes and methods with JSON errors", async function () {
    expectError(await hamlet().get("/no/such/endpoint"), 404, "Not Found");
    const res = await hamlet().request("PUT", "/server_settings");
    expect(res.status).to.equal(405);
    expect(res.body).to.include({ result: "error", msg: "Method Not Allowed" });
    expect(res.body.allowed_methods).to.deep.equal(["GET"]);
  });

  it("parses urlencoded, multipart and JSON bodies alike", async function () {
    for (const encoding of ["form", "multipart", "json"] as const) {
      const body = expectSuccess(
        await hamlet().post(
          "/register",
          { fetch_event_types: ["realm_user"], apply_markdown: true },
          { encoding },
        ),
      );
      expect(body.realm_users, encoding).to.be.an("array");
      expect(body).not.to.have.property("realm_name");
    }
  });

  it("reads DELETE parameters from the body and from the query string", async function () {
    const a = await register(hamlet());
    expectSuccess(await hamlet().delete("/events", { queue_id: a.queue_id }));
    const b = await register(hamlet());
    expectSuccess(await hamlet().delete("/events", { queue_id: b.queue_id }, { inQuery: true }));
  });

  it("merges query-string and body parameters; the body wins", async function () {
    const url = new URL(
      "/api/v1/register?fetch_event_types=%5B%22realm%22%5D&apply_markdown=true",
      server.url,
    );
    const token = Buffer.from(`${realm.users.hamlet!.email}:${realm.users.hamlet!.apiKey}`).toString(
      "base64",
    );
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Basic ${token}`, "content-type": "application/x-www-form-urlencoded" },
      body: "fetch_event_types=%5B%22realm_user%22%5D",
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).to.include({ result: "success" });
    expect(body).to.have.property("realm_users");
    expect(body).not.to.have.property("realm_name");
  });

  it("keeps form keys flat: a[b] is its own key, never a nested object", async function () {
    const body = expectSuccess(await hamlet().get("/users/me", { "a[b]": 1, "c.d": 2 }));
    expect(body.ignored_parameters_unsupported).to.deep.equal(["a[b]", "c.d"]);
    const form = expectSuccess(await hamlet().post("/register", { "x[y]": 1, fetch_event_types: [] }));
    expect(form.ignored_parameters_unsupported).to.deep.equal(["x[y]"]);
  });

  it("is immune to prototype pollution through JSON bodies and fields", async function () {
    const res = await hamlet().post(
      "/register",
      {
        __proto__: { polluted: true },
        fetch_event_types: [],
        client_capabilities: { __proto__: { x: true } },
      },
      { encoding: "json" },
    );
    expect(res.status).to.be.oneOf([200, 400]);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    const raw = await fetch(new URL("/api/v1/register", server.url), {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${realm.users.hamlet!.email}:${realm.users.hamlet!.apiKey}`).toString("base64")}`,
        "content-type": "application/json",
      },
      body: '{"__proto__": {"polluted": true}, "fetch_event_types": []}',
    });
    // The JSON parser refuses __proto__ keys outright.
    expect(raw.status).to.equal(400);
    expect(await raw.json()).to.include({ result: "error", code: "BAD_REQUEST" });
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    // In form fields, __proto__ is just an unknown parameter name.
    const form = expectSuccess(
      await hamlet().post("/register", { ["__proto__"]: "x", fetch_event_types: [] }),
    );
    expect(form.ignored_parameters_unsupported).to.deep.equal(["__proto__"]);
  });

  it("answers a malformed JSON body with a JSON 400", async function () {
    const res = await fetch(new URL("/api/v1/fetch_api_key", server.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"username": ',
    });
    expect(res.status).to.equal(400);
    expect(await res.json()).to.include({ result: "error", code: "BAD_REQUEST" });
  });

  it("refuses a body over the limit with a JSON 413 and writes nothing", async function () {
    const before = await server.app.knex("api_keys").count<Array<{ n: number }>>("* as n");
    const res = await server.anonymous.post("/fetch_api_key", {
      username: realm.users.hamlet!.email,
      password: "x".repeat(70000),
    });
    expect(res.status).to.equal(413);
    expect(res.body).to.include({ result: "error", code: "PAYLOAD_TOO_LARGE" });
    const after = await server.app.knex("api_keys").count<Array<{ n: number }>>("* as n");
    expect(after).to.deep.equal(before);
  });

  it("rejects two aliases of one parameter given together", async function () {
    const res = await hamlet().post("/register", { idle_queue_timeout: 60, queue_lifespan_secs: 60 });
    // Different parameters, not aliases: both accepted; the documented one wins.
    expect(expectSuccess(res).idle_queue_timeout_secs).to.equal(60);
  });
});
