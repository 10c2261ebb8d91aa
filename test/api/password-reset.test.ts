import { expect } from "chai";
import { hashConfirmationToken } from "../../src/lib/confirmation-tokens.js";
import { createLogger } from "../../src/logger.js";
import { anonymousClient, expectError, expectSuccess } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { TestSmtpServer, type ReceivedEmail } from "../helpers/smtp.js";
import { browse, isLoginPage, logIn, postForm, submitLogin } from "../helpers/web.js";
import { waitFor } from "../helpers/webhook-receiver.js";

const SENT = "If an account exists for that address, we sent a link to reset its password.";

describe("password reset", function () {
  const smtp = new TestSmtpServer();
  let server: TestServer;
  let realm: TestRealm;
  let log = "";
  const secrets = new Set<string>();

  before(async function () {
    await smtp.start();
    server = await startTestServer(smtp.config(), {
      logger: createLogger("debug", (line) => (log += line)),
    });
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
    await smtp.stop();
  });
  beforeEach(function () {
    smtp.received.length = 0;
  });

  /** Submits the request form and checks the answer, the same for every address. */
  async function requestReset(email: string): Promise<void> {
    const res = await postForm(server, "/accounts/password/reset/", { email });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.contain(SENT);
  }

  /** Waits until the worker has sent every queued email; returns what arrived. */
  async function sentEmails(): Promise<ReceivedEmail[]> {
    await waitFor(async () => (await server.app.knex("emails").where({ state: "queued" })).length === 0);
    return smtp.received;
  }

  /** The reset link of the one email that arrived, as a path on the test server. */
  async function resetLink(to: string): Promise<{ path: string; token: string }> {
    const emails = await sentEmails();
    expect(emails).to.have.length(1);
    const email = emails[0]!;
    expect(email.to).to.deep.equal([to]);
    const match =
      /http:\/\/chatd\.test(\/accounts\/password\/reset\/confirm\/\?token=([A-Za-z0-9_-]{43}))/.exec(
        email.text,
      );
    expect(match, email.text).not.to.equal(null);
    expect(email.html).to.contain(`href="http://chatd.test${match![1]!}"`);
    secrets.add(match![2]!);
    return { path: match![1]!, token: match![2]! };
  }

  const setPassword = (token: string, password: string) =>
    postForm(server, "/accounts/password/reset/confirm/", { token, new_password: password });

  const fetchApiKey = (user: TestUser, password: string) =>
    anonymousClient(server.url).post("/fetch_api_key", { username: user.email, password });

  const confirmations = (userId: number) =>
    server.app.knex("confirmations").where({ kind: "password_reset", object_id: userId }).orderBy("id");

  it("the login page links to the request page, whose form has an Email field and a Reset password button", async function () {
    const login = await (await browse(server, "/login/")).text();
    expect(login).to.contain('<a href="/accounts/password/reset/">Forgot your password?</a>');
    const res = await browse(server, "/accounts/password/reset/");
    expect(res.status).to.equal(200);
    const html = await res.text();
    expect(html).to.contain('<label for="reset-email">Email</label>');
    expect(html).to.contain('<button type="submit">Reset password</button>');
  });

  it("end to end: request, email, link, new password; old sessions and the old password are out", async function () {
    const hamlet = realm.users.hamlet!;
    const session = await logIn(server, hamlet);
    await requestReset(hamlet.email);
    const email = (await sentEmails())[0]!;
    expect(email.from).to.match(/^Elsinore </);
    expect(email.subject).to.equal("Reset your password for Elsinore");
    const { path, token } = await resetLink(hamlet.email);
    const [row] = await confirmations(hamlet.id);
    expect(row).to.include({ token_hash: hashConfirmationToken(token), used_at: null });
    expect(Number(row.expires_at) - Number(row.created_at)).to.equal(3600);

    const page = await browse(server, path);
    expect(page.status).to.equal(200);
    const form = await page.text();
    expect(form).to.contain('<label for="reset-new-password">New password</label>');
    expect(form).to.contain('<button type="submit">Set password</button>');

    const newPassword = "a brand new password";
    secrets.add(newPassword);
    const set = await setPassword(token, newPassword);
    expect(set.status).to.equal(303);
    expect(set.headers.get("location")).to.equal("/login/?password_reset=done");
    const notice = await (await browse(server, "/login/?password_reset=done")).text();
    expect(notice).to.contain("Your password has been reset. Log in with your new password.");

    // The old session ended; the old password no longer logs in; the new one does.
    const home = await (await browse(server, "/", { headers: { cookie: session.cookie } })).text();
    expect(isLoginPage(home)).to.equal(true);
    expectError(
      await fetchApiKey(hamlet, hamlet.password),
      401,
      "Your username or password is incorrect",
      "AUTHENTICATION_FAILED",
    );
    expect((await submitLogin(server, hamlet.email, hamlet.password)).session).to.equal(null);
    expectSuccess(await fetchApiKey(hamlet, newPassword));
    expect((await submitLogin(server, hamlet.email, newPassword)).res.status).to.equal(303);

    // Used: the link now says so and shows no form; submitting it again changes nothing.
    const used = await browse(server, path);
    expect(used.status).to.equal(410);
    const usedHtml = await used.text();
    expect(usedHtml).to.contain("This password reset link has already been used.");
    expect(usedHtml).not.to.contain("<form");
    const again = await setPassword(token, "yet another password");
    expect(again.status).to.equal(410);
    expectSuccess(await fetchApiKey(hamlet, newPassword));
  });

  it("an unknown address gets the same answer and no email", async function () {
    await requestReset("nobody@zulip.test");
    await requestReset("NOBODY@zulip.test ");
    const empty = await postForm(server, "/accounts/password/reset/", { email: " " });
    expect(empty.status).to.equal(400);
    expect(await empty.text()).to.contain("Enter your email address.");
    expect(await sentEmails()).to.have.length(0);
  });

  it("another realm's user, a deactivated user and a bot get no email", async function () {
    const other = await server.factory.realm({}, "Elsewhere");
    const stranger = await server.factory.user(other.id, "stranger");
    await requestReset(stranger.email);
    const cordelia = realm.users.cordelia!;
    expectSuccess(await realm.users.desdemona!.client.delete(`/users/${cordelia.id}`));
    await requestReset(cordelia.email);
    const bot = await server.factory.user(realm.id, "yorick", undefined, {
      isBot: true,
      botOwnerId: realm.users.hamlet!.id,
    });
    await requestReset(bot.email);
    expect(await sentEmails()).to.have.length(0);
    expect(await confirmations(bot.id)).to.have.length(0);
    expect(await confirmations(stranger.id)).to.have.length(0);
    expect(await confirmations(cordelia.id)).to.have.length(0);
  });

  it("an expired link shows no form and sets nothing", async function () {
    const othello = realm.users.othello!;
    await requestReset(othello.email);
    const { path, token } = await resetLink(othello.email);
    server.clock.advance(3600_000 + 1000);
    const res = await browse(server, path);
    expect(res.status).to.equal(410);
    const html = await res.text();
    expect(html).to.contain("This password reset link has expired.");
    expect(html).not.to.contain("<form");
    expect((await setPassword(token, "too late a password")).status).to.equal(410);
    expectSuccess(await fetchApiKey(othello, othello.password));
  });

  it("a new request revokes the older link", async function () {
    const prospero = realm.users.prospero!;
    await requestReset(prospero.email);
    const first = await resetLink(prospero.email);
    smtp.received.length = 0;
    await requestReset(prospero.email);
    const second = await resetLink(prospero.email);
    expect(second.token).not.to.equal(first.token);
    const res = await browse(server, first.path);
    expect(res.status).to.equal(410);
    expect(await res.text()).to.contain("This password reset link was replaced by a newer one.");
    expect((await setPassword(first.token, "revoked link password")).status).to.equal(410);
    expect((await browse(server, second.path)).status).to.equal(200);
  });

  it("a link of a user deactivated since, or of no reset at all, shows no form", async function () {
    const polonius = realm.users.polonius!;
    await requestReset(polonius.email);
    const { path, token } = await resetLink(polonius.email);
    expectSuccess(await realm.users.desdemona!.client.delete(`/users/${polonius.id}`));
    const res = await browse(server, path);
    expect(res.status).to.equal(404);
    expect(await res.text()).not.to.contain("<form");
    expect((await setPassword(token, "deactivated password")).status).to.equal(404);
    for (const bogus of ["", "short", "A".repeat(43)]) {
      const page = await browse(server, `/accounts/password/reset/confirm/?token=${bogus}`);
      expect(page.status).to.equal(404);
      expect(await page.text()).to.contain("This password reset link is not valid.");
    }
  });

  it("a too short password is refused on the form, and the link stays usable", async function () {
    const iago = realm.users.iago!;
    await requestReset(iago.email);
    const { token } = await resetLink(iago.email);
    const res = await setPassword(token, "abc");
    expect(res.status).to.equal(400);
    const html = await res.text();
    expect(html).to.contain("The password is too weak: use at least 6 characters.");
    expect(html).to.contain('<button type="submit">Set password</button>');
    expectSuccess(await fetchApiKey(iago, iago.password));
    expect((await setPassword(token, "long enough now")).status).to.equal(303);
  });

  it("a cross-site form post is refused (403) and sends nothing", async function () {
    const desdemona = realm.users.desdemona!;
    const res = await postForm(
      server,
      "/accounts/password/reset/",
      { email: desdemona.email },
      { origin: "https://evil.test" },
    );
    expect(res.status).to.equal(403);
    expect(await sentEmails()).to.have.length(0);
  });

  it("never writes a reset token or a new password to the log", function () {
    expect(secrets.size).to.be.above(3);
    for (const secret of secrets) expect(log).not.to.contain(secret);
    expect(log).to.contain("POST /accounts/password/reset/confirm/");
  });
});

describe("password reset: rate limit", function () {
  it("limits requests per address as logins are limited, and says so", async function () {
    const server = await startTestServer({
      rate_limiting: true,
      rate_limit_authenticate_by_username: "3600:2",
    });
    try {
      const realm = await server.factory.realm();
      const email = realm.users.hamlet!.email;
      for (let i = 0; i < 2; i++) {
        expect((await postForm(server, "/accounts/password/reset/", { email })).status).to.equal(200);
      }
      const limited = await postForm(server, "/accounts/password/reset/", { email });
      expect(limited.status).to.equal(429);
      expect(await limited.text()).to.contain("making too many attempts. Try again later.");
      await waitFor(async () => (await server.app.knex("emails").where({ state: "queued" })).length === 0);
      expect(await server.app.knex("emails")).to.have.length(2);
    } finally {
      await server.close();
    }
  });
});
