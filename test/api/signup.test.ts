import { expect } from "chai";
import { createLogger } from "../../src/logger.js";
import { cast, createChannel, subscriberIds, type Cast } from "../helpers/channels.js";
import { expectSuccess, type Params } from "../helpers/client.js";
import type { TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { browse, isAppShell, json, postForm, setSessionCookie } from "../helpers/web.js";

/** The path of the newest /join/ link in the emails sent to `to`. */
async function joinPath(server: TestServer, to: string): Promise<string> {
  const mail = await server.app
    .knex("emails")
    .where({ to_address: to })
    .orderBy("id", "desc")
    .first("text_body");
  const match = /\/join\/[A-Za-z0-9_-]{43}\//.exec(
    (mail as { text_body: string } | undefined)?.text_body ?? "",
  );
  expect(match, `an email to ${to} with a link`).not.to.equal(null);
  return match![0];
}

const userByEmail = (server: TestServer, email: string) =>
  server.app
    .knex("users")
    .where({ delivery_email: email })
    .first<{ id: number; role: number; full_name: string }>();

/** Labels of the form's fields, and whether the page has a form at all. */
const hasForm = (html: string) => html.includes('<form method="post" action="/join/');

describe("sign-up pages: /join/<token>/", function () {
  let server: TestServer;
  let u: Cast;
  let general: number;
  let lobby: number;
  let log = "";

  before(async function () {
    server = await startTestServer({}, { logger: createLogger("debug", (line) => void (log += line)) });
    u = cast(await server.factory.realm());
    general = await createChannel(u.iago, "general", [u.iago]);
    lobby = await createChannel(u.iago, "lobby", [u.iago]);
    expectSuccess(await u.iago.client.post("/default_streams", { stream_id: lobby }));
  });
  after(async function () {
    await server.close();
  });

  const invite = async (by: TestUser, email: string, params: Params = {}) => {
    expectSuccess(
      await by.client.post("/invites", { invitee_emails: email, stream_ids: [general], ...params }),
    );
    return joinPath(server, email);
  };

  it("shows the form: Email (read-only), Full name, Password and Sign up", async function () {
    const path = await invite(u.hamlet, "form@example.com");
    const res = await browse(server, path);
    expect(res.status).to.equal(200);
    const html = await res.text();
    expect(html).to.match(
      /<label for="signup-email">Email<\/label>\s*<input id="signup-email" name="email" type="email"[^>]*value="form@example.com" readonly>/,
    );
    expect(html).to.include('<label for="signup-full-name">Full name</label>');
    expect(html).to.include('<label for="signup-password">Password</label>');
    expect(html).to.include('<button type="submit">Sign up</button>');
  });

  it("signs up: the account with the invitation's role and channels, a session, the referrer told", async function () {
    const path = await invite(u.hamlet, "ann@example.com", { invite_as: 600 });
    const res = await postForm(server, path, { full_name: "Ann Example", password: "ann-password" });
    expect(res.status, await res.clone().text()).to.equal(303);
    expect(res.headers.get("location")).to.equal("/");
    const cookie = setSessionCookie(res)!;
    const token = /^sessionid=([^;]*)/.exec(cookie)![1]!;
    const ann = await userByEmail(server, "ann@example.com");
    expect(ann).to.include({ role: 600, full_name: "Ann Example" });
    // The session works: the app's page, and /json/ as Ann.
    const home = await browse(server, "/", { headers: { cookie: `sessionid=${token}` } });
    expect(isAppShell(await home.text())).to.equal(true);
    const me = expectSuccess(await json(server, { token, cookie: `sessionid=${token}` }, "GET", "/users/me"));
    expect(me).to.include({ user_id: ann.id, email: "ann@example.com" });
    // Subscribed to the invitation's channel, not to the default one (not asked for).
    expect(await subscriberIds(server, general)).to.include(ann.id);
    expect(await subscriberIds(server, lobby)).not.to.include(ann.id);
    // The referrer hears of it from the Notification Bot (Zulip's wording).
    const dm = expectSuccess(
      await u.hamlet.client.get("/messages", {
        anchor: "newest",
        num_before: 1,
        num_after: 0,
        apply_markdown: false,
      }),
    ).messages as Array<{ content: string; sender_full_name: string }>;
    expect(dm[0]).to.include({
      sender_full_name: "Notification Bot",
      content: `@_**Ann Example|${ann.id}** accepted your invitation to join Zulip!`,
    });
    // The invitation is no longer pending.
    const pending = expectSuccess(await u.hamlet.client.get("/invites")).invites as Array<{ email: string }>;
    expect(pending.map((i) => i.email)).not.to.include("ann@example.com");
  });

  it("joins the default channels when the invitation asks; no message when the referrer opted out", async function () {
    const path = await invite(u.iago, "bea@example.com", {
      include_realm_default_subscriptions: true,
      notify_referrer_on_join: false,
    });
    const before = expectSuccess(
      await u.iago.client.get("/messages", { anchor: "newest", num_before: 1, num_after: 0 }),
    ).messages as Array<{ id: number }>;
    expect(
      (await postForm(server, path, { full_name: "Bea Example", password: "bea-password" })).status,
    ).to.equal(303);
    const bea = await userByEmail(server, "bea@example.com");
    expect(await subscriberIds(server, lobby)).to.include(bea.id);
    expect(await subscriberIds(server, general)).to.include(bea.id);
    const after = expectSuccess(
      await u.iago.client.get("/messages", { anchor: "newest", num_before: 1, num_after: 0 }),
    ).messages as Array<{ id: number }>;
    expect(after.map((m) => m.id)).to.deep.equal(before.map((m) => m.id));
  });

  it("a used link says so, with no form, and makes no second account", async function () {
    const path = await invite(u.iago, "once@example.com");
    expect((await postForm(server, path, { full_name: "Once", password: "once-password" })).status).to.equal(
      303,
    );
    const again = await browse(server, path);
    expect(again.status).to.equal(404);
    const html = await again.text();
    expect(html).to.include("This invitation link has already been used.");
    expect(hasForm(html)).to.equal(false);
    const post = await postForm(server, path, { full_name: "Twice", password: "twice-password" });
    expect(post.status).to.equal(404);
    expect(setSessionCookie(post)).to.equal(undefined);
    expect((await userByEmail(server, "once@example.com")).full_name).to.equal("Once");
  });

  it("a revoked link says so; an expired one too; neither makes an account", async function () {
    const revoked = await invite(u.iago, "revoked@example.com");
    const id = (
      expectSuccess(await u.iago.client.get("/invites")).invites as Array<{ id: number; email: string }>
    ).find((i) => i.email === "revoked@example.com")!.id;
    expectSuccess(await u.iago.client.delete(`/invites/${id}`));
    const page = await browse(server, revoked);
    expect(page.status).to.equal(404);
    const html = await page.text();
    expect(html).to.include("This invitation link has been revoked.");
    expect(hasForm(html)).to.equal(false);

    const expired = await invite(u.iago, "expired@example.com", { invite_expires_in_minutes: 5 });
    server.clock.advance(6 * 60 * 1000);
    const old = await browse(server, expired);
    expect(old.status).to.equal(404);
    expect(await old.text()).to.include("This invitation link has expired.");
    expect(
      (await postForm(server, expired, { full_name: "Late", password: "late-password" })).status,
    ).to.equal(404);
    for (const email of ["revoked@example.com", "expired@example.com"]) {
      expect(await userByEmail(server, email), email).to.equal(undefined);
    }
    const unknown = await browse(server, `/join/${"A".repeat(43)}/`);
    expect(unknown.status).to.equal(404);
    expect(await unknown.text()).to.include("This invitation link is not valid.");
  });

  it("once an address has an account, its other invitations are void", async function () {
    const first = await invite(u.iago, "twice@example.com");
    const second = await invite(u.hamlet, "twice@example.com");
    expect(
      (await postForm(server, second, { full_name: "Twice", password: "twice-password" })).status,
    ).to.equal(303);
    const page = await browse(server, first);
    expect(page.status).to.equal(404);
    expect(hasForm(await page.text())).to.equal(false);
  });

  it("refuses a cross-site POST (CSRF) and bad input, keeping the link usable", async function () {
    const path = await invite(u.iago, "csrf@example.com");
    const evil = await postForm(
      server,
      path,
      { full_name: "Evil", password: "evil-password" },
      { origin: "http://evil.example" },
    );
    expect(evil.status).to.equal(403);
    const weak = await postForm(server, path, { full_name: "Weak", password: "abc" });
    expect(weak.status).to.equal(200);
    const html = await weak.text();
    expect(html).to.include("The password is too weak.");
    expect(hasForm(html)).to.equal(true);
    expect(await userByEmail(server, "csrf@example.com")).to.equal(undefined);
    expect((await postForm(server, path, { full_name: "Good", password: "good-password" })).status).to.equal(
      303,
    );
  });

  it("a reusable link asks for the address and, with email off, makes the account at once", async function () {
    const link = expectSuccess(await u.iago.client.post("/invites/multiuse", { stream_ids: [general] }))
      .invite_link as string;
    const path = new URL(link).pathname;
    const html = await (await browse(server, path)).text();
    expect(html).to.match(/<input id="signup-email" name="email" type="email"[^>]*value="" autofocus>/);
    expect(html).to.include('<label for="signup-full-name">Full name</label>');
    for (const who of ["cara", "dora"]) {
      const res = await postForm(server, path, {
        email: `${who}@example.com`,
        full_name: who,
        password: `${who}-password`,
      });
      expect(res.status, who).to.equal(303);
      const user = await userByEmail(server, `${who}@example.com`);
      expect(await subscriberIds(server, general)).to.include(user.id);
    }
    const taken = await postForm(server, path, {
      email: "cara@example.com",
      full_name: "Cara 2",
      password: "cara-password",
    });
    expect(await taken.text()).to.include("Already has an account.");
  });

  it("never writes a token into the log", async function () {
    const link = expectSuccess(await u.iago.client.post("/invites/multiuse", {})).invite_link as string;
    const token = /\/join\/([^/]+)\//.exec(link)![1]!;
    await browse(server, new URL(link).pathname);
    await browse(server, `/join/${token.slice(0, 20)}/`);
    const mailed = await invite(u.iago, "logged@example.com");
    await browse(server, mailed);
    expect(log).to.include("/join/[redacted]/");
    expect(log).not.to.include(token);
    expect(log).not.to.include(mailed);
  });
});

describe("sign-up pages with email on: a reusable link confirms the address first", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer({ smtp_host: "127.0.0.1", smtp_port: 1 });
    u = cast(await server.factory.realm());
  });
  after(async function () {
    await server.close();
  });

  it("mails a registration link; following it signs up with that address", async function () {
    const link = expectSuccess(await u.iago.client.post("/invites/multiuse", {})).invite_link as string;
    const path = new URL(link).pathname;
    const form = await (await browse(server, path)).text();
    expect(form).to.include('<label for="signup-email">Email</label>');
    expect(form).not.to.include("Full name");
    const res = await postForm(server, path, { email: "eve@example.com" });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.include("We sent an email to eve@example.com.");
    expect(await userByEmail(server, "eve@example.com")).to.equal(undefined);
    const confirm = await joinPath(server, "eve@example.com");
    const page = await (await browse(server, confirm)).text();
    expect(page).to.match(/value="eve@example.com" readonly>/);
    expect((await postForm(server, confirm, { full_name: "Eve", password: "eve-password" })).status).to.equal(
      303,
    );
    expect((await userByEmail(server, "eve@example.com")).full_name).to.equal("Eve");
    // The confirmation is single-use.
    expect((await browse(server, confirm)).status).to.equal(404);
  });
});
