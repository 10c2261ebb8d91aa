import { expect } from "chai";
import { expectError, expectSuccess, type ApiResponse } from "../helpers/client.js";
import { startTestServer, TEST_HOST, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";
import { browse, isAppShell, json, logIn, postForm, type LoggedIn } from "../helpers/web.js";

/** Django's CSRF refusal, as Zulip answers it: 403 CSRF_FAILED with the reason. */
function expectCsrfRefused(res: ApiResponse, reason: string): void {
  expectError(res, 403, `CSRF error: ${reason}`, "CSRF_FAILED");
  expect(res.body.reason).to.equal(reason);
  expect(res.headers.get("www-authenticate")).to.equal(null);
}

describe("web client: CSRF protection of /json/", function () {
  let server: TestServer;
  let realm: TestRealm;
  let hamlet: LoggedIn;
  let othello: LoggedIn;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    hamlet = await logIn(server, realm.users.hamlet!);
    othello = await logIn(server, realm.users.othello!);
  });
  after(async function () {
    await server.close();
  });

  /** Messages stored with this content. */
  const stored = async (content: string) =>
    (await server.app.knex("messages").where({ content }).select("id")).length;
  const sendAs = (
    session: LoggedIn,
    content: string,
    csrf?: string | null,
    headers?: Record<string, string>,
  ) =>
    json(
      server,
      session,
      "POST",
      "/messages",
      { type: "direct", to: [realm.users.cordelia!.id], content },
      { csrf, headers },
    );

  it("a change with the session's token is made", async function () {
    const sent = expectSuccess(await sendAs(hamlet, "with the token"));
    expect(sent.id).to.be.a("number");
    expect(await stored("with the token")).to.equal(1);
  });

  it("without X-CSRFToken: 403 'CSRF token missing.', and nothing is written", async function () {
    expectCsrfRefused(await sendAs(hamlet, "no token", null), "CSRF token missing.");
    expect(await stored("no token")).to.equal(0);
    // Nor does an empty header.
    expectCsrfRefused(await sendAs(hamlet, "empty token", ""), "CSRF token missing.");
    expect(await stored("empty token")).to.equal(0);
  });

  it("with another session's token (another user's, or the same user's other session): 'CSRF token incorrect.'", async function () {
    expectCsrfRefused(await sendAs(hamlet, "othello's token", othello.csrf), "CSRF token incorrect.");
    const again = await logIn(server, realm.users.hamlet!);
    expect(again.csrf).not.to.equal(hamlet.csrf);
    expectCsrfRefused(await sendAs(hamlet, "own other token", again.csrf), "CSRF token incorrect.");
    // The session token itself is not the CSRF token either.
    expectCsrfRefused(await sendAs(hamlet, "cookie as token", hamlet.token), "CSRF token incorrect.");
    expectCsrfRefused(await sendAs(hamlet, "truncated", hamlet.csrf.slice(1)), "CSRF token incorrect.");
    for (const content of ["othello's token", "own other token", "cookie as token", "truncated"]) {
      expect(await stored(content), content).to.equal(0);
    }
  });

  it("every unsafe method needs it: PATCH, DELETE, uploads; nothing changes", async function () {
    const id = expectSuccess(await sendAs(hamlet, "to be kept")).id as number;
    expectCsrfRefused(
      await json(server, hamlet, "PATCH", `/messages/${id}`, { content: "edited" }, { csrf: null }),
      "CSRF token missing.",
    );
    expectCsrfRefused(
      await json(server, hamlet, "DELETE", `/messages/${id}`, {}, { csrf: othello.csrf }),
      "CSRF token incorrect.",
    );
    expect(await stored("to be kept")).to.equal(1);
    expectCsrfRefused(
      await json(server, hamlet, "PATCH", "/settings", { full_name: "Not Hamlet" }, { csrf: null }),
      "CSRF token missing.",
    );
    expect((await server.factory.row(realm.id, realm.users.hamlet!.id)).full_name).to.equal("Hamlet Dane");

    const form = new FormData();
    form.append("file", new Blob([Buffer.from("secret plans")]), "plans.txt");
    const upload = await fetch(new URL("/json/user_uploads", server.url), {
      method: "POST",
      headers: { cookie: hamlet.cookie },
      body: form,
    });
    expect(upload.status).to.equal(403);
    expect(await upload.json()).to.include({ code: "CSRF_FAILED", msg: "CSRF error: CSRF token missing." });
    expect(await server.app.knex("attachments").where({ owner_id: realm.users.hamlet!.id })).to.deep.equal(
      [],
    );
  });

  it("a page of another site is refused even with the right token (Origin, Sec-Fetch-Site)", async function () {
    expectCsrfRefused(
      await sendAs(hamlet, "from evil", hamlet.csrf, { origin: "https://evil.test" }),
      "Origin checking failed - https://evil.test does not match any trusted origins.",
    );
    // Another port of this host is another origin.
    const port = Number(new URL(server.url).port);
    const otherPort = `http://127.0.0.1:${port === 65535 ? port - 1 : port + 1}`;
    expectCsrfRefused(
      await sendAs(hamlet, "other port", hamlet.csrf, { origin: otherPort }),
      `Origin checking failed - ${otherPort} does not match any trusted origins.`,
    );
    // An opaque origin (a sandboxed frame, a redirect across sites) is not this server's.
    expectCsrfRefused(
      await sendAs(hamlet, "opaque", hamlet.csrf, { origin: "null" }),
      "Origin checking failed - null does not match any trusted origins.",
    );
    expectCsrfRefused(
      await sendAs(hamlet, "cross-site", hamlet.csrf, { "sec-fetch-site": "cross-site" }),
      "Cross-site request refused.",
    );
    expectCsrfRefused(
      await sendAs(hamlet, "same-site", hamlet.csrf, { "sec-fetch-site": "same-site" }),
      "Cross-site request refused.",
    );
    for (const content of ["from evil", "other port", "opaque", "cross-site", "same-site"]) {
      expect(await stored(content), content).to.equal(0);
    }
  });

  it("this server's own origin passes: the address it was reached at, or its external_url behind a proxy", async function () {
    expectSuccess(await sendAs(hamlet, "same origin", hamlet.csrf, { origin: new URL(server.url).origin }));
    expectSuccess(
      await sendAs(hamlet, "public origin", hamlet.csrf, {
        origin: `http://${TEST_HOST}`,
        "sec-fetch-site": "same-origin",
      }),
    );
    expect(await stored("same origin")).to.equal(1);
    expect(await stored("public origin")).to.equal(1);
  });

  it("a GET needs no token (it changes nothing)", async function () {
    const me = expectSuccess(await json(server, hamlet, "GET", "/users/me", {}, { csrf: null }));
    expect(me.user_id).to.equal(realm.users.hamlet!.id);
    // Even with another session's token or a foreign Origin: reading is not a forgery risk
    // (another site cannot read the answer).
    expectSuccess(
      await json(
        server,
        hamlet,
        "GET",
        "/users/me",
        {},
        { csrf: othello.csrf, headers: { origin: "https://evil.test" } },
      ),
    );
  });

  it("logging out needs the token too: without it the session stays", async function () {
    const session = await logIn(server, realm.users.cordelia!);
    const refused = await postForm(server, "/accounts/logout/", {}, { cookie: session.cookie });
    expect(refused.status).to.equal(403);
    expect(await refused.json()).to.include({ code: "CSRF_FAILED", msg: "CSRF error: CSRF token missing." });
    expect(refused.headers.getSetCookie()).to.deep.equal([]);
    const wrong = await postForm(
      server,
      "/accounts/logout/",
      { csrfmiddlewaretoken: hamlet.csrf },
      { cookie: session.cookie },
    );
    expect(wrong.status).to.equal(403);
    const foreign = await postForm(
      server,
      "/accounts/logout/",
      {},
      { cookie: session.cookie, "x-csrftoken": session.csrf, origin: "https://evil.test" },
    );
    expect(foreign.status).to.equal(403);
    expectSuccess(await json(server, session, "GET", "/users/me"));
    expect(
      isAppShell(await (await browse(server, "/", { headers: { cookie: session.cookie } })).text()),
    ).to.equal(true);

    // The form's field works as the header does (Django's csrfmiddlewaretoken).
    const out = await postForm(
      server,
      "/accounts/logout/",
      { csrfmiddlewaretoken: session.csrf },
      { cookie: session.cookie },
    );
    expect(out.status).to.equal(303);
    expect((await json(server, session, "GET", "/users/me")).status).to.equal(401);
  });
});
