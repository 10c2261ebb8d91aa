import { expect } from "chai";
import { createBot } from "../helpers/bots.js";
import { createChannel, setRealmFields } from "../helpers/channels.js";
import { expectError, expectSuccess, type ApiResponse } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postWebhook } from "../helpers/webhooks.js";

/**
 * Ill-formed Unicode in a request parameter: a lone UTF-16 surrogate from a JSON body or
 * a JSON-encoded parameter, or ill-formed UTF-8 in a percent-escape (a surrogate's
 * encoding, an overlong form, a byte no sequence starts with). Each is refused with a 400
 * naming the parameter, by the parameter layer, before anything reads it.
 */
describe("ill-formed Unicode in parameters", function () {
  let server: TestServer;
  let realm: TestRealm;
  const u = (name: string) => realm.users[name]!;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    await setRealmFields(server, realm, { email_changes_disabled: false });
  });
  after(async function () {
    await server.close();
  });

  /** A request with a body (or query) exactly as given: the test client would re-encode it. */
  async function raw(
    user: TestUser,
    method: string,
    pathAndQuery: string,
    body?: { type: string; text: string },
  ): Promise<ApiResponse> {
    const token = Buffer.from(`${user.email}:${user.apiKey}`).toString("base64");
    const res = await fetch(new URL(`/api/v1${pathAndQuery}`, server.url), {
      method,
      headers: { authorization: `Basic ${token}`, ...(body ? { "content-type": body.type } : {}) },
      body: body?.text,
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  }
  const json = (value: unknown) => ({ type: "application/json", text: JSON.stringify(value) });
  const form = (text: string) => ({ type: "application/x-www-form-urlencoded", text });
  const count = async (table: string) => Number((await server.app.knex(table).count({ n: "*" }))[0]!.n);

  describe("a lone surrogate where an email address is checked (it was a 500)", function () {
    it("POST /bots short_name", async function () {
      const bots = await count("users");
      for (const shortName of ["a\ud800", "\udc00b"]) {
        expectError(
          await raw(u("hamlet"), "POST", "/bots", json({ full_name: "Surrogate", short_name: shortName })),
          400,
          "short_name is not valid UTF-8",
        );
      }
      expect(await count("users")).to.equal(bots);
    });

    it("PATCH /settings email", async function () {
      const before = await server.factory.row(realm.id, u("hamlet").id);
      expectError(
        await raw(u("hamlet"), "PATCH", "/settings", json({ email: "a\ud800@x.test" })),
        400,
        "email is not valid UTF-8",
      );
      const after = await server.factory.row(realm.id, u("hamlet").id);
      expect(after.delivery_email).to.equal(before.delivery_email);
    });

    it("POST /users email", async function () {
      const users = await count("users");
      expectError(
        await raw(
          u("desdemona"),
          "POST",
          "/users",
          json({ email: "horatio\udfff@zulip.test", password: "pw-horatio", full_name: "Horatio" }),
        ),
        400,
        "email is not valid UTF-8",
      );
      expect(await count("users")).to.equal(users);
    });

    it("PATCH /users/{id} new_email", async function () {
      const othello = u("othello");
      expectError(
        await raw(
          u("desdemona"),
          "PATCH",
          `/users/${othello.id}`,
          json({ new_email: "moor\ud83d@zulip.test" }),
        ),
        400,
        "new_email is not valid UTF-8",
      );
      const row = await server.factory.row(realm.id, othello.id);
      expect(row.delivery_email).to.equal(othello.email);
    });
  });

  it("refuses an escaped lone surrogate inside a JSON-encoded parameter as Zulip does", async function () {
    const hamlet = u("hamlet");
    const narrow = (operand: string) => ({
      narrow: [["topic", operand]],
      anchor: "newest",
      num_before: 1,
      num_after: 0,
    });
    // The test client sends non-string values as JSON text, which escapes a lone surrogate.
    for (const operand of ["\ud800", "x\udc00", "\udc00\ud800"]) {
      expectError(await hamlet.client.get("/messages", narrow(operand)), 400, "narrow is not valid JSON");
    }
    // A pair, escaped or not, is one character.
    expectSuccess(await hamlet.client.get("/messages", narrow("\ud83d\ude42")));
    expectSuccess(
      await raw(
        hamlet,
        "GET",
        `/messages?anchor=newest&num_before=1&num_after=0&narrow=${encodeURIComponent('[["topic","\\ud83d\\ude42"]]')}`,
      ),
    );

    const channels = await count("streams");
    for (const encoding of ["form", "json"] as const) {
      expectError(
        await hamlet.client.post(
          "/users/me/subscriptions",
          { subscriptions: [{ name: "half\ud800" }] },
          { encoding },
        ),
        400,
        "subscriptions is not valid JSON",
      );
      expectError(
        await hamlet.client.post(
          "/users/me/subscriptions",
          { subscriptions: [{ ["\udc00"]: "x" }] },
          { encoding },
        ),
        400,
        "subscriptions is not valid JSON",
      );
    }
    expect(await count("streams")).to.equal(channels);
  });

  it("refuses ill-formed UTF-8 in a form body, naming the parameter", async function () {
    const hamlet = u("hamlet");
    for (const escaped of [
      "%ED%A0%80",
      "%ED%BF%BF",
      "%C0%AF",
      "%E0%80%AF",
      "%FF",
      "a%E2%82",
      "%F4%90%80%80",
    ]) {
      expectError(
        await raw(hamlet, "POST", "/messages/render", form(`content=${escaped}`)),
        400,
        "content is not valid UTF-8",
      );
    }
    // Well-formed escapes still read as before: a character beyond the BMP, a real U+FFFD.
    const ok = expectSuccess(
      await raw(hamlet, "POST", "/messages/render", form("content=%F0%9D%84%9E%EF%BF%BD")),
    );
    expect(ok.rendered).to.equal("<p>\u{1d11e}\ufffd</p>");

    const users = await count("users");
    expectError(
      await raw(u("desdemona"), "POST", "/users", form("email=h%C0%AF%40zulip.test&password=pw&full_name=H")),
      400,
      "email is not valid UTF-8",
    );
    expect(await count("users")).to.equal(users);
  });

  it("refuses ill-formed UTF-8 in a query string, over both request paths", async function () {
    const hamlet = u("hamlet");
    const narrow = encodeURIComponent('[["topic","x"]]').replace("x", "%ED%A0%80");
    // GET without a body takes the plain path; POST with parameters in the query, Koa's.
    expectError(
      await raw(hamlet, "GET", `/messages?anchor=newest&num_before=1&num_after=0&narrow=${narrow}`),
      400,
      "narrow is not valid UTF-8",
    );
    expectError(await raw(hamlet, "POST", "/messages/render?content=%FF"), 400, "content is not valid UTF-8");
    // Also a parameter the endpoint does not read.
    expectError(await raw(hamlet, "GET", "/users/me?stray=%C0%AF"), 400, "stray is not valid UTF-8");
  });

  it("refuses ill-formed UTF-8 in a path parameter", async function () {
    const hamlet = u("hamlet");
    expectError(
      await raw(hamlet, "GET", "/users/%ED%A0%80%40zulip.test"),
      400,
      "user_id_or_email is not valid UTF-8",
    );
    expectError(await raw(hamlet, "GET", "/users/ab%FF"), 400, "user_id_or_email is not valid UTF-8");
    // A malformed escape is no ill-formed UTF-8: it is read as it stands.
    expectError(await raw(hamlet, "GET", "/users/%zz"), 400, "No such user");
  });

  it("refuses an incoming webhook payload holding a lone surrogate as malformed JSON, as Zulip", async function () {
    const hamlet = u("hamlet");
    await createChannel(hamlet, "hooks", [hamlet]);
    const bot = await createBot(hamlet, "surrogates", { bot_type: 2 });
    const inChannel = () => server.app.knex("messages").whereNotNull("stream_id").count({ n: "*" });
    const before = await inChannel();
    for (const payload of ['{"text": "a\\ud800"}', '{"text": "\\udc00"}', '{"\\udbff": "x"}']) {
      server.clock.advance(61_000);
      const res = await postWebhook(server, `json?api_key=${bot.apiKey}&stream=hooks`, payload);
      expectError(res as never, 400, "Malformed JSON", "INVALID_JSON");
    }
    expect(await inChannel()).to.deep.equal(before);
    // A pair is one character.
    const pair = await postWebhook(
      server,
      `json?api_key=${bot.apiKey}&stream=hooks`,
      '{"text": "\\ud83d\\ude42"}',
    );
    expect(pair.body).to.deep.equal({ result: "success", msg: "" });
  });
});
