import { expect } from "chai";
import { createLogger } from "../../src/logger.js";
import { cast, createChannel, setRealmFields, subscriberIds, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import type { TestRealm } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { TestSmtpServer, type ReceivedEmail } from "../helpers/smtp.js";
import { browse, isAppShell, postForm, setSessionCookie } from "../helpers/web.js";
import { waitFor } from "../helpers/webhook-receiver.js";

const INVITATION_NEEDED = "You need an invitation to join this organization.";
const hasForm = (html: string) => /<form method="post" action="\/(register|join)\//.test(html);
const SIGN_UP_LINK = '<a href="/register/">Sign up</a>';

const userByEmail = (server: TestServer, email: string) =>
  server.app
    .knex("users")
    .where({ delivery_email: email })
    .first<{ id: number; role: number; full_name: string } | undefined>();

/** Rows open sign-up could write: none may appear when it is refused. */
const written = async (server: TestServer, email: string) => ({
  users: (await server.app.knex("users").where({ delivery_email: email })).length,
  confirmations: (await server.app.knex("confirmations").where({ email })).length,
  emails: (await server.app.knex("emails").where({ to_address: email })).length,
});
const NOTHING = { users: 0, confirmations: 0, emails: 0 };

describe("open sign-up at /register/, email off", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let lobby: number;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    lobby = await createChannel(u.iago, "lobby", [u.iago]);
    expectSuccess(await u.iago.client.post("/default_streams", { stream_id: lobby }));
  });
  after(async function () {
    await server.close();
  });

  it("where invitations are required: no Sign up link, /register/ says so with no form, a POST is refused", async function () {
    expect(await (await browse(server, "/login/")).text()).not.to.include(SIGN_UP_LINK);
    const page = await browse(server, "/register/");
    expect(page.status).to.equal(200);
    const html = await page.text();
    expect(html).to.include(INVITATION_NEEDED);
    expect(hasForm(html)).to.equal(false);
    const post = await postForm(server, "/register/", {
      email: "sneaky@example.com",
      full_name: "Sneaky",
      password: "sneaky-password",
    });
    expect(post.status).to.equal(403);
    expect(await post.text()).to.include(INVITATION_NEEDED);
    expect(setSessionCookie(post)).to.equal(undefined);
    expect(await written(server, "sneaky@example.com")).to.deep.equal(NOTHING);
  });

  it("an open realm: the login page's Sign up link, the whole form, and an account in the default channels", async function () {
    await setRealmFields(server, realm, { invite_required: false });
    expect(await (await browse(server, "/login/")).text()).to.include(SIGN_UP_LINK);
    const html = await (await browse(server, "/register/")).text();
    expect(html).to.match(/<input id="signup-email" name="email" type="email"[^>]*value="" autofocus>/);
    expect(html).to.include('<label for="signup-full-name">Full name</label>');
    expect(html).to.include('<label for="signup-password">Password</label>');
    expect(html).to.include('<button type="submit">Sign up</button>');
    const res = await postForm(server, "/register/", {
      email: "olivia@example.com",
      full_name: "Olivia",
      password: "olivia-password",
    });
    expect(res.status, await res.clone().text()).to.equal(303);
    expect(res.headers.get("location")).to.equal("/");
    const token = /^sessionid=([^;]*)/.exec(setSessionCookie(res)!)![1]!;
    const home = await browse(server, "/", { headers: { cookie: `sessionid=${token}` } });
    expect(isAppShell(await home.text())).to.equal(true);
    const olivia = await userByEmail(server, "olivia@example.com");
    expect(olivia).to.include({ role: 400, full_name: "Olivia" });
    expect(await subscriberIds(server, lobby)).to.include(olivia!.id);
  });

  it("in an open realm, a member's account must be three days old to invite (Zulip's spam rule)", async function () {
    const invite = (by: typeof u.hamlet) =>
      by.client.post("/invites", { invitee_emails: "friend@example.com", stream_ids: [] });
    expectError(
      await invite(u.hamlet),
      400,
      "Your account is too new to send invites for this organization. Ask an organization admin, or a more experienced user.",
      "INVITATION_FAILED",
    );
    expect(await written(server, "friend@example.com")).to.deep.equal(NOTHING);
    expectSuccess(await invite(u.iago));
    server.clock.advance(3 * 24 * 3600 * 1000 + 1000);
    expectSuccess(
      await u.hamlet.client.post("/invites", { invitee_emails: "pal@example.com", stream_ids: [] }),
    );
  });

  it("an address that has an account gets Zulip's answer and no second account; bad input keeps the form", async function () {
    const taken = await postForm(server, "/register/", {
      email: "olivia@example.com",
      full_name: "Olivia Again",
      password: "olivia-password",
    });
    expect(await taken.text()).to.include("Already has an account.");
    expect(setSessionCookie(taken)).to.equal(undefined);
    expect((await userByEmail(server, "olivia@example.com"))!.full_name).to.equal("Olivia");
    const weak = await postForm(server, "/register/", {
      email: "weak@example.com",
      full_name: "W",
      password: "a",
    });
    const html = await weak.text();
    expect(html).to.include("The password is too weak.");
    expect(hasForm(html)).to.equal(true);
    const evil = await postForm(
      server,
      "/register/",
      { email: "evil@example.com", full_name: "Evil", password: "evil-password" },
      { origin: "http://evil.example" },
    );
    expect(evil.status).to.equal(403);
    for (const email of ["weak@example.com", "evil@example.com"]) {
      expect(await written(server, email), email).to.deep.equal(NOTHING);
    }
  });

  it("honours the realm's domains, with Zulip's wording; nothing is written", async function () {
    expectSuccess(
      await u.desdemona.client.post("/realm/domains", { domain: "example.com", allow_subdomains: false }),
    );
    expectSuccess(
      await u.desdemona.client.post("/realm/domains", { domain: "corp.test", allow_subdomains: true }),
    );
    expectSuccess(await u.desdemona.client.patch("/realm", { emails_restricted_to_domains: true }));
    const cases: Array<[string, string]> = [
      [
        "outsider@other.org",
        "Your email address, outsider@other.org, is not in one of the domains that are allowed to register for accounts in this organization.",
      ],
      [
        "sub@mail.example.com",
        "Your email address, sub@mail.example.com, is not in one of the domains that are allowed to register for accounts in this organization.",
      ],
      ["tag+x@example.com", "Email addresses containing + are not allowed in this organization."],
    ];
    for (const [email, message] of cases) {
      const res = await postForm(server, "/register/", { email, full_name: "Out", password: "out-password" });
      expect(await res.text(), email).to.include(message);
      expect(await written(server, email), email).to.deep.equal(NOTHING);
    }
    for (const [email, name] of [
      ["in@example.com", "Inside One"],
      ["in@eu.corp.test", "Inside Two"],
    ]) {
      const res = await postForm(server, "/register/", {
        email: email!,
        full_name: name!,
        password: "in-password",
      });
      expect(res.status, await res.clone().text()).to.equal(303);
    }
    expectSuccess(await u.desdemona.client.patch("/realm", { emails_restricted_to_domains: false }));
  });
});

describe("open sign-up at /register/, email on (a real SMTP server)", function () {
  const smtp = new TestSmtpServer();
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let lobby: number;
  let log = "";

  before(async function () {
    await smtp.start();
    server = await startTestServer(smtp.config(), { logger: createLogger("debug", (line) => (log += line)) });
    realm = await server.factory.realm();
    u = cast(realm);
    lobby = await createChannel(u.iago, "lobby", [u.iago]);
    expectSuccess(await u.iago.client.post("/default_streams", { stream_id: lobby }));
    await setRealmFields(server, realm, { invite_required: false });
  });
  after(async function () {
    await server.close();
    await smtp.stop();
  });
  beforeEach(function () {
    smtp.received.length = 0;
  });

  /** What arrived once the worker has sent every queued email. */
  async function arrived(to: string): Promise<ReceivedEmail[]> {
    await waitFor(async () => (await server.app.knex("emails").where({ state: "queued" })).length === 0);
    return smtp.received.filter((m) => m.to.includes(to));
  }

  /** Asks for an account; the answer is the same for every address. */
  async function ask(email: string): Promise<void> {
    const res = await postForm(server, "/register/", { email });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.include(`We sent an email to ${email}.`);
  }

  const joinPath = (mail: ReceivedEmail) => {
    const match = /http:\/\/chatd\.test(\/join\/([A-Za-z0-9_-]{43})\/)/.exec(mail.text);
    expect(match, mail.text).not.to.equal(null);
    return { path: match![1]!, token: match![2]! };
  };

  it("asks for the address, mails a link, and the link's form makes the account (once)", async function () {
    const form = await (await browse(server, "/register/")).text();
    expect(form).to.include('<label for="signup-email">Email</label>');
    expect(form).not.to.include("Full name");
    await ask("pia@example.com");
    expect(await userByEmail(server, "pia@example.com")).to.equal(undefined);
    const [mail, ...more] = await arrived("pia@example.com");
    expect(more).to.deep.equal([]);
    expect(mail!.subject).to.equal("Activate your Elsinore account");
    const { path, token } = joinPath(mail!);
    const page = await (await browse(server, path)).text();
    expect(page).to.match(/value="pia@example.com" readonly>/);
    expect(page).to.include('<label for="signup-full-name">Full name</label>');
    expect(page).to.include('<button type="submit">Sign up</button>');
    // The address is the link's: one typed into the POST is ignored.
    const res = await postForm(server, path, {
      email: "other@example.com",
      full_name: "Pia",
      password: "pia-password",
    });
    expect(res.status).to.equal(303);
    const pia = await userByEmail(server, "pia@example.com");
    expect(pia).to.include({ role: 400, full_name: "Pia" });
    expect(await userByEmail(server, "other@example.com")).to.equal(undefined);
    expect(await subscriberIds(server, lobby)).to.include(pia!.id);
    // Single-use: the page says so, and a second POST makes nothing.
    const again = await browse(server, path);
    expect(again.status).to.equal(404);
    expect(await again.text()).to.include("This invitation link has already been used.");
    expect((await postForm(server, path, { full_name: "Pia 2", password: "pia-password" })).status).to.equal(
      404,
    );
    expect(log).not.to.include(token);
    expect(log).not.to.include("pia-password");
  });

  it("the link expires after a day, as Zulip's", async function () {
    await ask("late@example.com");
    const { path } = joinPath((await arrived("late@example.com"))[0]!);
    server.clock.advance(24 * 3600 * 1000 + 1000);
    const page = await browse(server, path);
    expect(page.status).to.equal(404);
    expect(await page.text()).to.include("This invitation link has expired.");
    expect((await postForm(server, path, { full_name: "Late", password: "late-password" })).status).to.equal(
      404,
    );
    expect(await userByEmail(server, "late@example.com")).to.equal(undefined);
  });

  it("an address with an account gets the same answer; its owner is told by email, with no link to sign up", async function () {
    await ask(u.hamlet.email);
    const [mail, ...more] = await arrived(u.hamlet.email);
    expect(more).to.deep.equal([]);
    expect(mail!.subject).to.equal("You already have an account in Elsinore");
    expect(mail!.text).to.include("http://chatd.test/login/");
    expect(mail!.text).not.to.match(/\/join\//);
    expect(await server.app.knex("confirmations").where({ email: u.hamlet.email })).to.deep.equal([]);
  });

  it("a mailed link is refused once the realm requires invitations; nothing is written", async function () {
    await ask("closing@example.com");
    const { path } = joinPath((await arrived("closing@example.com"))[0]!);
    await setRealmFields(server, realm, { invite_required: true });
    const page = await browse(server, path);
    expect(page.status).to.equal(403);
    expect(await page.text()).to.include(INVITATION_NEEDED);
    const post = await postForm(server, path, { full_name: "Closing", password: "closing-password" });
    expect(post.status).to.equal(403);
    expect(await userByEmail(server, "closing@example.com")).to.equal(undefined);
    const asked = await postForm(server, "/register/", { email: "later@example.com" });
    expect(asked.status).to.equal(403);
    expect(await written(server, "later@example.com")).to.deep.equal(NOTHING);
    await setRealmFields(server, realm, { invite_required: false });
  });
});
