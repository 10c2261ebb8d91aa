import { expect } from "chai";
import type { Browser } from "playwright-core";
import {
  launchBrowser,
  logIn,
  requireBrowser,
  screenshotOnFailure,
  type Person,
} from "../helpers/browser.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { checkView } from "../helpers/web-views.js";
import { ROLE } from "../../src/world/roles.js";

const NOTICE = "Email is off on this server";

/**
 * With no SMTP server (the default), an administrator is told that invitations are not
 * mailed and gets each invitee's sign-up link to hand over, which signs the person up.
 */
describe("web client: invitations and email change with email off", function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let desdemona: Person;
  let invited: Person | undefined;

  before(async function () {
    requireBrowser(this);
    server = await startTestServer();
    const realm = await server.factory.realm({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER });
    const d = realm.users.desdemona!;
    browser = await launchBrowser();
    desdemona = await logIn(browser, server, d.email, d.password, {
      hash: "#organization/invitations",
    });
    await desdemona.context.grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: server.url,
    });
  });

  after(async function () {
    await browser?.close();
    await server?.close();
  });

  afterEach(async function () {
    await screenshotOnFailure(this, [desdemona, invited]);
    await invited?.context.close();
    expect(desdemona?.problems ?? []).to.deep.equal([]);
    expect(invited?.problems ?? []).to.deep.equal([]);
    invited = undefined;
  });

  it("says email is off, shows the link to copy, and that link signs the person up", async function () {
    const page = desdemona.page;
    await page.getByRole("heading", { level: 2, name: "Invitations" }).waitFor();
    await page.getByText(NOTICE).waitFor();
    const form = page.getByRole("form", { name: "Invite by email" });
    await form.getByLabel("Email addresses").fill("ophelia@example.com");
    await form.getByRole("button", { name: "Create invitations" }).click();
    await page.getByRole("status").filter({ hasText: "Invitations created" }).waitFor();

    const links = form.getByRole("region", { name: "Sign-up links to send" });
    const field = links.getByRole("textbox", { name: "Sign-up link for ophelia@example.com" });
    const link = await field.inputValue();
    expect(link).to.match(/^http:\/\/chatd\.test\/join\/[A-Za-z0-9_-]{43}\/$/);
    await checkView(page, "Organization settings");
    await links.getByRole("button", { name: "Copy link for ophelia@example.com" }).click();
    await links.getByRole("status").filter({ hasText: "Link for ophelia@example.com copied" }).waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).to.equal(link);

    // A fresh browser, as the invited person's own, given the link by hand.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const invitee = await context.newPage();
    invited = { context, page: invitee, problems: [] };
    invitee.on("pageerror", (err) => invited!.problems.push(`page error: ${err.message}`));
    await invitee.goto(`${server.url}${new URL(link).pathname}`);
    expect(await invitee.getByLabel("Email").inputValue()).to.equal("ophelia@example.com");
    await invitee.getByLabel("Full name").fill("Ophelia Dane");
    await invitee.getByLabel("Password").fill("get-thee-to-a-nunnery");
    await invitee.getByRole("button", { name: "Sign up" }).click();
    await invitee.getByRole("heading", { level: 1, name: "Inbox" }).waitFor();
    const user = (await server.app.knex("users").where({ delivery_email: "ophelia@example.com" }).first()) as
      { full_name: string } | undefined;
    expect(user?.full_name).to.equal("Ophelia Dane");
  });

  it("an email change says the confirmation was not mailed, not Check your email", async function () {
    const page = desdemona.page;
    await page.goto(`${server.url}/#settings/account-and-privacy`);
    await page.getByRole("button", { name: "Change email" }).click();
    await page.getByLabel("New email").fill("desdemona@cyprus.example.com");
    await page.getByRole("button", { name: "Send confirmation" }).click();
    const said = page.getByRole("status").filter({ hasText: "desdemona@cyprus.example.com" });
    expect(await said.textContent()).to.equal(
      "Email is off on this server, so the confirmation for desdemona@cyprus.example.com was not " +
        "mailed. Ask whoever runs the server for its link: it is in the outbox/ folder of the " +
        "server's data directory.",
    );
  });
});
