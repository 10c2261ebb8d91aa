import { expect } from "chai";
import { expectSuccess } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";
import {
  browse,
  isAppShell,
  isLoginPage,
  json,
  logIn,
  postForm,
  setSessionCookie,
  submitLogin,
} from "../helpers/web.js";
import { csrfTokenFor, generateSessionToken } from "../../src/lib/sessions.js";

/** A Content-Security-Policy header as directive -> sources. */
function directives(policy: string | null): Record<string, string[]> {
  expect(policy, "a Content-Security-Policy header").to.be.a("string");
  const parsed: Record<string, string[]> = {};
  for (const part of policy!.split(";")) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) parsed[name] = sources;
  }
  return parsed;
}

/** What issue 28 asks of every page: scripts from this server only, nothing inline or evaluated. */
function expectStrictPolicy(policy: Record<string, string[]>): void {
  expect(policy["script-src"]).to.deep.equal(["'self'"]);
  expect(policy["object-src"]).to.deep.equal(["'none'"]);
  expect(policy["base-uri"]).to.deep.equal(["'none'"]);
  expect(policy["frame-ancestors"]).to.deep.equal(["'none'"]);
  expect(policy["default-src"]).to.deep.equal(["'none'"]);
  for (const sources of Object.values(policy)) {
    expect(sources).not.to.include("'unsafe-inline'");
    expect(sources).not.to.include("'unsafe-eval'");
    expect(sources).not.to.include("*");
  }
}

/** Nothing the policy would have to allow inline: no inline script, handler or style. */
function expectNothingInline(html: string): void {
  for (const tag of html.match(/<script\b[^>]*>/gi) ?? []) expect(tag).to.match(/\ssrc="\/static\/web\//);
  expect(html).not.to.match(/<script\b[^>]*>[^<]+<\/script>/i);
  expect(html).not.to.match(/\son[a-z]+\s*=/i);
  expect(html).not.to.match(/<style\b/i);
  expect(html).not.to.match(/\sstyle\s*=/i);
  expect(html).not.to.match(/javascript:/i);
}

const LOGIN_POLICY = {
  "default-src": ["'none'"],
  "script-src": ["'self'"],
  "style-src": ["'self'"],
  "img-src": ["'self'"],
  "object-src": ["'none'"],
  "base-uri": ["'none'"],
  "frame-ancestors": ["'none'"],
  "form-action": ["'self'"],
};

const APP_POLICY = {
  "default-src": ["'none'"],
  "script-src": ["'self'"],
  "style-src": ["'self'"],
  "connect-src": ["'self'"],
  "font-src": ["'self'"],
  "img-src": ["'self'", "data:", "blob:", "https://secure.gravatar.com"],
  "media-src": ["'self'", "blob:"],
  "object-src": ["'none'"],
  "base-uri": ["'none'"],
  "frame-ancestors": ["'none'"],
  "form-action": ["'self'"],
};

const WRONG_PASSWORD =
  "Please enter a correct email and password. Note that both fields may be case-sensitive.";

describe("web client: the login page and the app's page", function () {
  let server: TestServer;
  let realm: TestRealm;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm(undefined, "Elsinore & <Co>");
  });
  after(async function () {
    await server.close();
  });

  describe("the login page", function () {
    it("GET / without a session: the form (Email, Password, Log in), with a strict CSP", async function () {
      const res = await browse(server, "/");
      expect(res.status).to.equal(200);
      expect(res.headers.get("content-type")).to.equal("text/html; charset=utf-8");
      expect(directives(res.headers.get("content-security-policy"))).to.deep.equal(LOGIN_POLICY);
      expectStrictPolicy(directives(res.headers.get("content-security-policy")));
      expect(res.headers.get("x-frame-options")).to.equal("DENY");
      expect(res.headers.get("x-content-type-options")).to.equal("nosniff");
      expect(res.headers.get("cache-control")).to.equal("no-store");
      expect(setSessionCookie(res)).to.equal(undefined);
      const html = await res.text();
      expect(isLoginPage(html)).to.equal(true);
      expect(html).to.contain("<title>Log in · Elsinore &amp; &lt;Co&gt;</title>");
      expect(html).to.contain('<label for="login-email">Email</label>');
      expect(html).to.match(/<input id="login-email" name="username" type="email" autocomplete="username"/);
      expect(html).to.contain('<label for="login-password">Password</label>');
      expect(html).to.match(/<input id="login-password" name="password" type="password"/);
      expect(html).to.contain('<button type="submit">Log in</button>');
      expect(html).to.contain('<input type="hidden" name="next" value="">');
      expect(html).to.contain('<a href="/help/clients">');
      expectNothingInline(html);
    });

    it("GET /login/ is the same page; its script and stylesheet are served", async function () {
      const res = await browse(server, "/login/");
      expect(res.status).to.equal(200);
      expect(directives(res.headers.get("content-security-policy"))).to.deep.equal(LOGIN_POLICY);
      const html = await res.text();
      expect(isLoginPage(html)).to.equal(true);
      for (const [, path] of html.matchAll(/(?:src|href)="(\/static\/web\/[^"]+)"/g)) {
        const asset = await browse(server, path!);
        expect(asset.status, path).to.equal(200);
        expect(asset.headers.get("content-type"), path).to.match(/^text\/(javascript|css)/);
      }
    });
  });

  describe("logging in", function () {
    it("the right password: 303 to /, an HttpOnly SameSite=Lax cookie (not Secure over http)", async function () {
      const hamlet = realm.users.hamlet!;
      const { res, session } = await submitLogin(server, hamlet.email, hamlet.password);
      expect(res.status).to.equal(303);
      expect(res.headers.get("location")).to.equal("/");
      expect(res.headers.get("cache-control")).to.equal("no-store");
      const cookie = setSessionCookie(res)!;
      expect(cookie).to.equal(
        `sessionid=${session!.token}; Path=/; Max-Age=${server.app.config.session_max_age_secs}; HttpOnly; SameSite=Lax`,
      );
      expect(session!.token).to.match(/^[A-Za-z0-9_-]{43}$/);
      // Stored hashed: no column of the row holds the token.
      const rows = await server.app.knex("sessions").where({ user_id: hamlet.id });
      expect(rows).to.have.lengthOf(1);
      expect(JSON.stringify(rows)).not.to.contain(session!.token);
    });

    it("with an https external_url the cookie is Secure", async function () {
      const secure = await startTestServer({ external_url: "https://chatd.test" });
      try {
        const users = (await secure.factory.realm({ hamlet: 400 })).users;
        const { res, session } = await submitLogin(secure, users.hamlet!.email, users.hamlet!.password);
        expect(res.status).to.equal(303);
        expect(setSessionCookie(res)).to.equal(
          `sessionid=${session!.token}; Path=/; Max-Age=${secure.app.config.session_max_age_secs}; HttpOnly; SameSite=Lax; Secure`,
        );
      } finally {
        await secure.close();
      }
    });

    it("a wrong password: the page again, with the error and the email, no cookie and no session", async function () {
      const othello = realm.users.othello!;
      const { res, session } = await submitLogin(server, othello.email, "not-his-password");
      expect(res.status).to.equal(200);
      expect(session).to.equal(null);
      expect(directives(res.headers.get("content-security-policy"))).to.deep.equal(LOGIN_POLICY);
      const html = await res.text();
      expect(isLoginPage(html)).to.equal(true);
      expect(html).to.contain(`<p class="form-error" role="alert">${WRONG_PASSWORD}</p>`);
      expect(html).to.contain(`value="${othello.email}"`);
      expect(await server.app.knex("sessions").where({ user_id: othello.id })).to.deep.equal([]);
    });

    it("an unknown email gets exactly the wrong password's answer", async function () {
      const wrong = await submitLogin(server, "nobody@zulip.test", "whatever-password");
      const known = await submitLogin(server, realm.users.cordelia!.email, "whatever-password");
      expect(wrong.res.status).to.equal(known.res.status);
      expect(wrong.session).to.equal(null);
      const html = await wrong.res.text();
      expect(html.replace("nobody@zulip.test", "X")).to.equal(
        (await known.res.text()).replace(realm.users.cordelia!.email, "X"),
      );
    });

    it("echoes what was typed escaped", async function () {
      const { res } = await submitLogin(server, '"><script>alert(1)</script>', "x");
      const html = await res.text();
      expect(html).to.contain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
      expectNothingInline(html);
    });

    it("a deactivated user is told so, only with the right password", async function () {
      const yorick = await server.factory.user(realm.id, "yorick");
      expectSuccess(await realm.users.iago!.client.delete(`/users/${yorick.id}`));
      const right = await submitLogin(server, yorick.email, yorick.password);
      expect(right.res.status).to.equal(200);
      expect(right.session).to.equal(null);
      expect(await right.res.text()).to.contain(
        '<p class="form-error" role="alert">Your account is no longer active.</p>',
      );
      const wrong = await submitLogin(server, yorick.email, "wrong-password");
      expect(await wrong.res.text()).to.contain(WRONG_PASSWORD);
      expect(await server.app.knex("sessions").where({ user_id: yorick.id })).to.deep.equal([]);
    });

    it("a form posted from another site is refused before the password is checked", async function () {
      const cordelia = realm.users.cordelia!;
      const { res, session } = await submitLogin(
        server,
        cordelia.email,
        cordelia.password,
        {},
        { origin: "https://evil.test" },
      );
      expect(res.status).to.equal(403);
      expect(session).to.equal(null);
      expect(isLoginPage(await res.text())).to.equal(true);
      expect(await server.app.knex("sessions").where({ user_id: cordelia.id })).to.deep.equal([]);
    });

    it("`next` may only be a fragment of this app: anything else lands on /", async function () {
      const prospero = realm.users.prospero!;
      const land = async (next: string) => {
        const { res } = await submitLogin(server, prospero.email, prospero.password, { next });
        expect(res.status, next).to.equal(303);
        return res.headers.get("location");
      };
      expect(await land("#narrow/channel/1-general/topic/castle")).to.equal(
        "/#narrow/channel/1-general/topic/castle",
      );
      for (const next of [
        "//evil.test",
        "https://evil.test",
        "/\\evil.test",
        "\\\\evil.test",
        "javascript:alert(1)",
        "/#x",
        "#a b",
        "#x\r\nSet-Cookie: sessionid=forged",
        " #x",
        "",
      ]) {
        expect(await land(next), JSON.stringify(next)).to.equal("/");
      }
    });

    it("GET /login/ with a live session goes to the app", async function () {
      const session = await logIn(server, realm.users.hamlet!);
      const res = await browse(server, "/login/", { headers: { cookie: session.cookie } });
      expect(res.status).to.equal(303);
      expect(res.headers.get("location")).to.equal("/");
    });
  });

  describe("the app's page", function () {
    it("GET / with a session: the app, its CSRF token, a strict CSP, and no API key anywhere", async function () {
      const desdemona = realm.users.desdemona!;
      // Every key the user holds: the factory's, and two a client fetched with the password.
      const keys = [desdemona.apiKey];
      for (let i = 0; i < 2; i++) {
        const issued = expectSuccess(
          await server.anonymous.post("/fetch_api_key", {
            username: desdemona.email,
            password: desdemona.password,
          }),
        );
        keys.push(issued.api_key as string);
      }
      const { session } = await submitLogin(server, desdemona.email, desdemona.password);
      const res = await browse(server, "/", { headers: { cookie: session!.cookie } });
      expect(res.status).to.equal(200);
      expect(res.headers.get("content-type")).to.equal("text/html; charset=utf-8");
      expect(res.headers.get("cache-control")).to.equal("no-store");
      const policy = directives(res.headers.get("content-security-policy"));
      expect(policy).to.deep.equal(APP_POLICY);
      expectStrictPolicy(policy);
      expect(setSessionCookie(res)).to.equal(undefined);
      const html = await res.text();
      expect(isAppShell(html)).to.equal(true);
      expect(html).to.contain(`<meta name="csrf-token" content="${csrfTokenFor(session!.token)}">`);
      expect(html).to.contain("<title>Elsinore &amp; &lt;Co&gt;</title>");
      expectNothingInline(html);
      for (const key of keys) expect(html).not.to.contain(key);
      expect(html).not.to.contain(session!.token);
      // Nor does the state the app then loads.
      const state = await json(
        server,
        session,
        "POST",
        "/register",
        {},
        { csrf: csrfTokenFor(session!.token) },
      );
      expectSuccess(state);
      for (const key of keys) expect(JSON.stringify(state.body)).not.to.contain(key);
      expect(JSON.stringify(state.body)).not.to.contain(session!.token);
      // The app's files are served.
      for (const [, path] of html.matchAll(/(?:src|href)="(\/static\/web\/[^"]+)"/g)) {
        expect((await browse(server, path!)).status, path).to.equal(200);
      }
    });

    it("a stale, forged or malformed cookie gets the login page", async function () {
      const hamlet = realm.users.hamlet!;
      const ended = await logIn(server, hamlet);
      const out = await postForm(
        server,
        "/accounts/logout/",
        {},
        { cookie: ended.cookie, "x-csrftoken": ended.csrf },
      );
      expect(out.status).to.equal(303);
      for (const cookie of [
        ended.cookie,
        `sessionid=${generateSessionToken()}`,
        "sessionid=",
        "sessionid=abc",
        `sessionid=${ended.token}x`,
        `sessionid="${ended.token}"`,
        `sessionid=${"A".repeat(5000)}`,
        `othercookie=${ended.token}`,
        "sessionid",
      ]) {
        const res = await browse(server, "/", { headers: { cookie } });
        expect(res.status, cookie).to.equal(200);
        const html = await res.text();
        expect(isLoginPage(html), cookie).to.equal(true);
        expect(directives(res.headers.get("content-security-policy"))).to.deep.equal(LOGIN_POLICY);
      }
    });

    it("HEAD / answers as GET, without a body", async function () {
      const session = await logIn(server, realm.users.cordelia!);
      const res = await browse(server, "/", { method: "HEAD", headers: { cookie: session.cookie } });
      expect(res.status).to.equal(200);
      expect(directives(res.headers.get("content-security-policy"))).to.deep.equal(APP_POLICY);
      expect(await res.text()).to.equal("");
    });

    it("a second login from the same browser ends the session its cookie held", async function () {
      const othello = realm.users.othello!;
      const first = await logIn(server, othello);
      const { res, session } = await submitLogin(
        server,
        othello.email,
        othello.password,
        {},
        { cookie: first.cookie },
      );
      expect(res.status).to.equal(303);
      expect(session!.token).not.to.equal(first.token);
      expect(
        isLoginPage(await (await browse(server, "/", { headers: { cookie: first.cookie } })).text()),
      ).to.equal(true);
      expect(
        isAppShell(await (await browse(server, "/", { headers: { cookie: session!.cookie } })).text()),
      ).to.equal(true);
      expect(await server.app.knex("sessions").where({ user_id: othello.id })).to.have.lengthOf(1);
    });
  });
});

describe("web client: login is rate limited like fetch_api_key", function () {
  let server: TestServer;
  let realm: TestRealm;

  beforeEach(async function () {
    server = await startTestServer({ rate_limiting: true });
    server.clock.freeze();
    realm = await server.factory.realm({ hamlet: 400, othello: 400 });
  });
  afterEach(async function () {
    await server.close();
  });

  const TOO_MANY =
    "You&#x27;re making too many attempts to sign in. Try again later or contact your organization administrator for help.";

  it("the 6th try of a username is refused, even with the right password; a success clears the count", async function () {
    const hamlet = realm.users.hamlet!;
    await submitLogin(server, hamlet.email, "wrong-1");
    expect((await submitLogin(server, hamlet.email, hamlet.password)).res.status).to.equal(303); // clears
    for (let i = 0; i < 5; i++) {
      const { res } = await submitLogin(server, hamlet.email, `wrong-${i}`);
      expect(res.status).to.equal(200);
      expect(await res.text()).to.contain(WRONG_PASSWORD);
    }
    const refused = await submitLogin(server, hamlet.email.toUpperCase(), hamlet.password);
    expect(refused.res.status).to.equal(429);
    expect(refused.session).to.equal(null);
    // Zulip's sliding window: until the first of the five tries is 30 minutes old (the clock is frozen).
    expect(Number(refused.res.headers.get("retry-after"))).to.equal(1800);
    expect(directives(refused.res.headers.get("content-security-policy"))).to.deep.equal(LOGIN_POLICY);
    const html = await refused.res.text();
    expect(isLoginPage(html)).to.equal(true);
    expect(html).to.contain(TOO_MANY);
    expect(await server.app.knex("sessions").where({ user_id: hamlet.id })).to.have.lengthOf(1);
    // Another username is unaffected; time frees this one.
    expect(
      (await submitLogin(server, realm.users.othello!.email, realm.users.othello!.password)).res.status,
    ).to.equal(303);
    server.clock.advance(1_799_000);
    expect((await submitLogin(server, hamlet.email, hamlet.password)).res.status).to.equal(429);
    server.clock.advance(1000);
    expect((await submitLogin(server, hamlet.email, hamlet.password)).res.status).to.equal(303);
  });

  it("shares one count with fetch_api_key, both ways", async function () {
    const hamlet = realm.users.hamlet!;
    for (let i = 0; i < 3; i++) {
      const res = await server.anonymous.post("/fetch_api_key", {
        username: hamlet.email,
        password: "wrong",
      });
      expect(res.body.code).to.equal("AUTHENTICATION_FAILED");
    }
    for (let i = 0; i < 2; i++) await submitLogin(server, hamlet.email, "wrong");
    const login = await submitLogin(server, hamlet.email, hamlet.password);
    expect(login.res.status).to.equal(429);
    expect(login.session).to.equal(null);
    const key = await server.anonymous.post("/fetch_api_key", {
      username: hamlet.email,
      password: hamlet.password,
    });
    expect(key.status).to.equal(429);
    expect(key.body.code).to.equal("RATE_LIMIT_HIT");
    expect(await server.app.knex("sessions").where({ user_id: hamlet.id })).to.deep.equal([]);
  });
});

describe("web client: a deactivated organization", function () {
  it("shows its sessions the login page, and refuses logins with its reason", async function () {
    const server = await startTestServer();
    try {
      const realm = await server.factory.realm({ hamlet: 400 });
      const hamlet = realm.users.hamlet!;
      const session = await logIn(server, hamlet);
      await server.app.knex("realms").where({ id: realm.id }).update({ deactivated: true });
      server.app.realms.invalidate(realm.id);

      const page = await browse(server, "/", { headers: { cookie: session.cookie } });
      expect(isLoginPage(await page.text())).to.equal(true);
      expect(directives(page.headers.get("content-security-policy"))).to.deep.equal(LOGIN_POLICY);
      const me = await json(server, session, "GET", "/users/me");
      expect(me.status).to.equal(401);
      expect(me.body.code).to.equal("REALM_DEACTIVATED");
      expect(me.headers.get("www-authenticate")).to.equal('Session realm="zulip"');
      const { res, session: none } = await submitLogin(server, hamlet.email, hamlet.password);
      expect(none).to.equal(null);
      expect(await res.text()).to.contain(
        '<p class="form-error" role="alert">This organization has been deactivated.</p>',
      );
    } finally {
      await server.close();
    }
  });
});
